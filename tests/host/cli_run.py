"""One in-process `uxhost` run, as the CLI tests drive it."""

from uxhost.cli import main


def run_cli(capsys, *argv):
    """(exit code, stdout, stderr) of `uxhost ARGV…` (arguments may be paths or numbers)."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err
