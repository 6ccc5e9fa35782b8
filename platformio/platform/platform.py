"""The ux-filter local platform: nothing to install, the toolchain is the system's (builder/main.py)."""
from platformio.public import PlatformBase


class UxfilterPlatform(PlatformBase):
    def is_embedded(self):
        return True
