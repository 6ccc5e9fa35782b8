# Cortex-M firmware (included by Makefile):
#
#   make arm BOARD=mps2-an500 BUILD=/abs/dir   → $(BUILD)/firmware.elf, .bin, .map; prints flash and RAM use
#                                                 and the stack's reservation, worst case and deepest path
#
# A board is one folder ../boards/<BOARD>/ with a board.mk (CPU flags, sources, largest η) and a
# memory.ld. The ux core's sources come from sources.mk, the protocol loop from app/.
#
# The stack reservation is sized from the image itself: tools/stack_bound.py computes the worst case
# (GCC's -fstack-usage frames along the call graph of the linked machine code, plus nested exceptions;
# its docstring lists what it assumes) and the image is linked again with STACK_SIZE that figure. The code
# does not depend on STACK_SIZE (only the RAM addresses after the stack do), so the first link's analysis
# holds for the second, which is analysed again and checked. `make arm STACK_SIZE=N` imposes a
# reservation instead, and the build fails when it is below the worst case.

BOARD      ?= mps2-an500
BOARDS_DIR := ../boards
BOARD_DIR  := $(BOARDS_DIR)/$(BOARD)

# Included only when it exists, so that host builds never depend on a board.
-include $(BOARD_DIR)/board.mk

ARM_PREFIX  ?= arm-none-eabi-
ARM_CC      := $(ARM_PREFIX)gcc
ARM_OBJCOPY := $(ARM_PREFIX)objcopy
ARM_SIZE    := $(ARM_PREFIX)size
ARM_OBJ     := $(BUILD)/obj

FW_VERSION  ?= 0.2.0+$(shell git describe --always --dirty 2>/dev/null || echo unknown)
APP_SRCS    := $(sort $(wildcard app/*.c))
ARM_BSRCS   := $(addprefix $(BOARDS_DIR)/,$(BOARD_SRCS))

# -fstack-usage: each object's frames (obj/…/*.su), which the stack bound reads; the code is unchanged.
ARM_CFLAGS  := $(BOARD_CPU) $(UX_CFLAGS) -O2 -fstack-usage -ffunction-sections -fdata-sections -fno-common \
               -Iapp $(addprefix -I$(BOARDS_DIR)/,$(BOARD_INCS)) $(BOARD_DEFS) \
               -DBOARD_NAME='"$(BOARD_NAME)"' -DAPP_MAX_ETA=$(BOARD_MAX_ETA) \
               $(if $(BOARD_WATCHDOG_MS),-DAPP_WATCHDOG_MS=$(BOARD_WATCHDOG_MS)u) \
               -DAPP_FW_VERSION='"$(FW_VERSION)"' -MMD -MP
# nano.specs: newlib-nano's small libc and libm; no startup files (boards/common/cortex-m/startup.c) and
# no syscalls: the firmware does no I/O through libc and allocates nothing. --emit-relocs keeps the
# relocations in the ELF (sections that are not loaded: the .bin is the same), from which the stack bound
# reads every function address the image holds, the possible targets of its indirect calls.
ARM_LDFLAGS := $(BOARD_CPU) --specs=nano.specs -nostartfiles -Wl,--gc-sections -Wl,--fatal-warnings \
               -Wl,--emit-relocs -Wl,-Map=$(BUILD)/firmware.map -L$(BOARD_DIR) $(addprefix -L$(BOARDS_DIR)/,$(BOARD_LDDIRS)) \
               -T memory.ld

ARM_OBJS := $(patsubst %.c,$(ARM_OBJ)/%.o,$(UX_SRCS) $(APP_SRCS)) \
            $(patsubst $(BOARDS_DIR)/%.c,$(ARM_OBJ)/boards/%.o,$(ARM_BSRCS))

STACK_BOUND := python3 tools/stack_bound.py
# The reservation the image links with: STACK_SIZE when given, else the worst case of the image.
STACK_LINK  = $(if $(STACK_SIZE),$(STACK_SIZE),$$(cat $(BUILD)/stack_size))

.PHONY: arm arm-check-board

arm: arm-check-board $(BUILD)/firmware.elf $(BUILD)/firmware.bin
	@$(ARM_SIZE) -A $(BUILD)/firmware.elf | awk -v board=$(BOARD) -v stack="$$(cat $(BUILD)/stack.txt)" ' \
	    $$1 == ".vectors" || $$1 == ".text" || $$1 == ".ARM.exidx" { flash += $$2 } \
	    $$1 == ".data" { flash += $$2; ram += $$2 } \
	    $$1 == ".bss" || $$1 == ".noinit" || $$1 == ".stack" { ram += $$2 } \
	    END { printf "%s: flash %d bytes, RAM %d bytes (%s)\n", board, flash, ram, stack }'

arm-check-board:
	@test -f $(BOARD_DIR)/board.mk || { echo "arm.mk: no board '$(BOARD)' (expected $(BOARD_DIR)/board.mk)"; exit 1; }
	@command -v $(ARM_CC) >/dev/null || { echo "arm.mk: $(ARM_CC) not found (make deps installs it)"; exit 1; }

# Every object depends on the flags: a board or version change rebuilds everything.
$(BUILD)/arm.flags: FORCE | $(BUILD)
	@echo '$(ARM_CFLAGS) $(ARM_LDFLAGS)' | cmp -s - $@ || echo '$(ARM_CFLAGS) $(ARM_LDFLAGS)' > $@

$(ARM_OBJ)/%.o: %.c $(BUILD)/arm.flags
	@mkdir -p $(dir $@)
	$(ARM_CC) $(ARM_CFLAGS) -c $< -o $@

$(ARM_OBJ)/boards/%.o: $(BOARDS_DIR)/%.c $(BUILD)/arm.flags
	@mkdir -p $(dir $@)
	$(ARM_CC) $(ARM_CFLAGS) -c $< -o $@

ARM_LDSCRIPTS := $(BOARD_DIR)/memory.ld $(wildcard $(BOARDS_DIR)/common/*/*.ld)

# The image to analyse: linked with no stack at all (its code is the final image's).
$(BUILD)/firmware.unsized.elf: $(ARM_OBJS) $(ARM_LDSCRIPTS)
	$(ARM_CC) $(ARM_LDFLAGS) -Wl,--defsym=STACK_SIZE=0 -o $@ $(ARM_OBJS) -lm

$(BUILD)/stack_size: $(BUILD)/firmware.unsized.elf tools/stack_bound.py
	$(STACK_BOUND) --size --name $(BOARD) $< $(ARM_OBJ) > $@.tmp && mv $@.tmp $@

# A change of STACK_SIZE on the command line relinks.
$(BUILD)/stack.flags: FORCE | $(BUILD)
	@echo '$(STACK_SIZE)' | cmp -s - $@ || echo '$(STACK_SIZE)' > $@

# The final image is analysed again and checked before it takes its name: no image with too small a
# stack is left behind. stack.txt keeps the figures `arm` prints.
$(BUILD)/firmware.elf: $(BUILD)/firmware.unsized.elf $(BUILD)/stack_size $(BUILD)/stack.flags
	$(ARM_CC) $(ARM_LDFLAGS) -Wl,--defsym=STACK_SIZE=$(STACK_LINK) -o $@.tmp $(ARM_OBJS) -lm
	$(STACK_BOUND) --check --name $(BOARD) $@.tmp $(ARM_OBJ) > $(BUILD)/stack.txt || { rm -f $@.tmp; exit 1; }
	mv $@.tmp $@

$(BUILD)/firmware.bin: $(BUILD)/firmware.elf
	$(ARM_OBJCOPY) -O binary $< $@

.PHONY: FORCE
FORCE:

-include $(ARM_OBJS:.o=.d)
