"""uxhost: the host side of ux-filter — stream sensor traces to a device, dump and validate posteriors."""

from .versions import package_version

# pyproject.toml's version (uxhost.versions): the one place it is written.
__version__ = package_version()
