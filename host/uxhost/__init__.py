"""uxhost: the host side of ux-filter — stream sensor traces to a device, dump and validate posteriors."""

__version__ = "0.1.0"
