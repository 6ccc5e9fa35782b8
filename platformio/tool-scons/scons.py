"""PlatformIO runs `python scons.py …` from its tool-scons package: hand over to SCons from PyPI (pinned in
constraints.txt), so no package is downloaded."""
import SCons.Script

SCons.Script.main()
