# Cortex-M firmware (included by Makefile):
#
#   make arm BOARD=mps2-an500 BUILD=/abs/dir   → $(BUILD)/firmware.elf, .bin, .map; prints flash and RAM use
#
# A board is one folder ../boards/<BOARD>/ with a board.mk (CPU flags, sources, largest η) and a
# memory.ld. The ux core's sources come from sources.mk, the protocol loop from app/.

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

ARM_CFLAGS  := $(BOARD_CPU) $(UX_CFLAGS) -O2 -ffunction-sections -fdata-sections -fno-common \
               -Iapp $(addprefix -I$(BOARDS_DIR)/,$(BOARD_INCS)) $(BOARD_DEFS) \
               -DBOARD_NAME='"$(BOARD_NAME)"' -DAPP_MAX_ETA=$(BOARD_MAX_ETA) \
               $(if $(BOARD_WATCHDOG_MS),-DAPP_WATCHDOG_MS=$(BOARD_WATCHDOG_MS)u) \
               -DAPP_FW_VERSION='"$(FW_VERSION)"' -MMD -MP
# nano.specs: newlib-nano's small libc and libm; no startup files (boards/common/cortex-m/startup.c) and
# no syscalls: the firmware does no I/O through libc and allocates nothing.
ARM_LDFLAGS := $(BOARD_CPU) --specs=nano.specs -nostartfiles -Wl,--gc-sections -Wl,--fatal-warnings \
               -Wl,-Map=$(BUILD)/firmware.map -L$(BOARD_DIR) $(addprefix -L$(BOARDS_DIR)/,$(BOARD_LDDIRS)) \
               -T memory.ld

ARM_OBJS := $(patsubst %.c,$(ARM_OBJ)/%.o,$(UX_SRCS) $(APP_SRCS)) \
            $(patsubst $(BOARDS_DIR)/%.c,$(ARM_OBJ)/boards/%.o,$(ARM_BSRCS))

.PHONY: arm arm-check-board

arm: arm-check-board $(BUILD)/firmware.elf $(BUILD)/firmware.bin
	@$(ARM_SIZE) -A $(BUILD)/firmware.elf | awk -v board=$(BOARD) ' \
	    $$1 == ".vectors" || $$1 == ".text" || $$1 == ".ARM.exidx" { flash += $$2 } \
	    $$1 == ".data" { flash += $$2; ram += $$2 } \
	    $$1 == ".bss" || $$1 == ".noinit" || $$1 == ".stack" { ram += $$2 } \
	    $$1 == ".stack" { stack = $$2 } \
	    END { printf "%s: flash %d bytes, RAM %d bytes (stack %d)\n", board, flash, ram, stack }'

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

$(BUILD)/firmware.elf: $(ARM_OBJS) $(BOARD_DIR)/memory.ld $(wildcard $(BOARDS_DIR)/common/*/*.ld)
	$(ARM_CC) $(ARM_LDFLAGS) -o $@ $(ARM_OBJS) -lm

$(BUILD)/firmware.bin: $(BUILD)/firmware.elf
	$(ARM_OBJCOPY) -O binary $< $@

.PHONY: FORCE
FORCE:

-include $(ARM_OBJS:.o=.d)
