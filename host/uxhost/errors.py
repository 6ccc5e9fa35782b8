"""The errors uxhost's library modules raise for a failure a person, not a programmer, caused and can fix.

Both are ordinary Python errors, so a program that uses the library catches them as such: `InputError`
is a `ValueError` (a value given is wrong: an option, a file's content, a name), `ToolError` an `OSError`
(something outside the program is missing or failed: a tool, a build, a device). The CLI maps them, with the
other library errors, to one line and exit status 2 in one place (cli.expected_errors).
"""


class InputError(ValueError):
    """A value the user gave is wrong (an option, a file, a model, a system's name): the message says which
    and what would be right."""


class ToolError(OSError):
    """Something the program needs from outside is missing or failed (GDB, pyOCD, QEMU, a firmware image not
    built, a device that does not answer as ours): the message says what to do."""
