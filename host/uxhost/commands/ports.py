"""`uxhost ports`: the serial ports a board may be on, with the debug probe behind each USB port."""

from __future__ import annotations


def register(sub) -> None:
    parser = sub.add_parser(
        "ports",
        help="list serial ports (and the debug probe behind each, where known)",
        description="List the serial ports pyserial finds, with their USB VID:PID and the "
        "debug probe it belongs to where known (ST-LINK on Nucleo boards, "
        "DAPLink, J-Link). Pass the first column to `uxhost stream --port`.",
    )
    parser.set_defaults(run=run)


def run(args) -> int:
    from ..ports import list_ports

    ports = list_ports()
    if not ports:
        print("no serial ports found (is the board plugged in, and may this user open /dev/tty*?)")
        return 0
    width = max(len(p.device) for p in ports)
    for p in ports:
        usb = f"  USB {p.usb}" if p.usb else ""
        probe = f"  {p.probe}" if p.probe else ""
        print(f"{p.device:<{width}}  {p.description}{usb}{probe}")
    return 0
