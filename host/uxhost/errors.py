"""The one error type of uxhost's library modules that a person, not a programmer, caused and can fix."""


class UserError(Exception):
    """A failure the user can fix (a missing file, a bad option, a device that is not ours): the CLI prints
    its message as one line and exits 2."""
