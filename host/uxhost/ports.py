"""Serial ports a board may be on: pyserial's list, with the debug probe a USB VID:PID belongs to."""

from __future__ import annotations

from dataclasses import dataclass

# USB VID:PID of the debug probes whose virtual COM port carries the link (vendors' published ids).
PROBES = {
    (0x0483, 0x374B): "ST-LINK/V2-1 (Nucleo, Discovery)",
    (0x0483, 0x374E): "STLINK-V3 (Nucleo)",
    (0x0483, 0x374F): "STLINK-V3 (Nucleo)",
    (0x0483, 0x3752): "ST-LINK/V2-1 (Nucleo)",
    (0x0483, 0x3753): "STLINK-V3 (Nucleo)",
    (0x0D28, 0x0204): "DAPLink (micro:bit, CMSIS-DAP)",
    (0x1366, 0x0105): "SEGGER J-Link",
    (0x1366, 0x1015): "SEGGER J-Link",
}


@dataclass(frozen=True)
class Port:
    device: str  # what `uxhost stream --port` takes
    description: str
    usb: str  # "VID:PID", or "" for a port that is not USB
    probe: str  # the known probe behind that VID:PID, or ""


def describe(info) -> Port:
    """A pyserial ListPortInfo as a Port."""
    usb = f"{info.vid:04X}:{info.pid:04X}" if info.vid is not None and info.pid is not None else ""
    probe = PROBES.get((info.vid, info.pid), "") if usb else ""
    return Port(info.device, info.description or "", usb, probe)


def list_ports() -> list[Port]:
    from serial.tools import list_ports

    return [describe(info) for info in sorted(list_ports.comports(), key=lambda i: i.device)]
