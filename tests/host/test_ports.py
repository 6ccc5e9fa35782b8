"""`uxhost ports`: pyserial's port list, with the probe behind a known USB VID:PID."""

from serial.tools.list_ports_common import ListPortInfo

from uxhost.cli import main
from uxhost.ports import describe, list_ports


def port(device, vid=None, pid=None, description="n/a"):
    info = ListPortInfo(device, skip_link_detection=True)
    info.vid, info.pid, info.description = vid, pid, description
    return info


def test_a_nucleo_st_link_is_named():
    p = describe(port("/dev/ttyACM0", 0x0483, 0x374B, "STM32 STLink"))
    assert (p.device, p.usb, p.probe) == ("/dev/ttyACM0", "0483:374B", "ST-LINK/V2-1 (Nucleo, Discovery)")


def test_an_unknown_usb_device_and_a_plain_uart_are_listed_without_a_probe():
    assert describe(port("/dev/ttyUSB0", 0x1A86, 0x7523)).probe == ""
    plain = describe(port("/dev/ttyS0"))
    assert plain.usb == "" and plain.probe == ""


def test_the_command_lists_what_pyserial_finds(capsys):
    assert main(["ports"]) == 0
    out = capsys.readouterr().out
    found = list_ports()
    if found:
        assert all(p.device in out for p in found)
    else:
        assert "no serial ports found" in out
