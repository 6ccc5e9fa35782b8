# Source lists of the ux core, shared by the host build (Makefile) and the Cortex-M build (arm.mk).
# Paths are relative to this directory.
UX_INCLUDE     := include
UX_CORE_SRCS   := $(sort $(wildcard src/ux/*.c))
UX_MODEL_SRCS  := $(sort $(wildcard src/models/*.c))
UX_SRCS        := $(UX_CORE_SRCS) $(UX_MODEL_SRCS)
# The elementary functions (ux/uxm.h), part of the core and also built alone for the reference.
UXM_SRCS       := $(sort $(wildcard src/ux/uxm_*.c))
# Flags every build of the core uses: no fused multiply-add (it changes results across platforms).
UX_CFLAGS      := -std=c11 -Wall -Wextra -Werror -ffp-contract=off -I$(UX_INCLUDE) -Isrc/ux
