// GENERATED from docs/protocol.toml by scripts/codegen — do not edit by hand.
// Change the source and run `make generate`; tests fail when this file and its source drift apart.
/*
 * oracle.h — what the fuzz harnesses (fuzz/*_fuzz.c) accept, taken from the protocol's tables: the
 * statuses of a step that answers with a posterior ([values.status], each the core's UX_<name> of the
 * same value, checked below at compile time), the device's message types and the ERROR codes. A
 * status, message or code added to docs/protocol.toml reaches the oracles with `make generate`; one
 * the core returns and the table lacks is a finding (the device would send what the host cannot read).
 */
#ifndef FUZZ_ORACLE_H
#define FUZZ_ORACLE_H

#include "ux/config.h"

_Static_assert(UX_OK == 0, "docs/protocol.toml: status OK is 0, the core's UX_OK is not");
_Static_assert(UX_FALLBACK == 1, "docs/protocol.toml: status FALLBACK is 1, the core's UX_FALLBACK is not");
_Static_assert(UX_NO_EVIDENCE == 2, "docs/protocol.toml: status NO_EVIDENCE is 2, the core's UX_NO_EVIDENCE is not");
_Static_assert(UX_REFOCUSED == 3, "docs/protocol.toml: status REFOCUSED is 3, the core's UX_REFOCUSED is not");
_Static_assert(UX_OUTLIER == 4, "docs/protocol.toml: status OUTLIER is 4, the core's UX_OUTLIER is not");
_Static_assert(UX_DEPARTED == 5, "docs/protocol.toml: status DEPARTED is 5, the core's UX_DEPARTED is not");
_Static_assert(UX_INCONSISTENT == 6, "docs/protocol.toml: status INCONSISTENT is 6, the core's UX_INCONSISTENT is not");

/* 1 when `v` is a status of [values.status] (a step answered), else 0. */
static inline int oracle_status(long v)
{
    switch (v) {
    case 0: /* OK */
    case 1: /* FALLBACK */
    case 2: /* NO_EVIDENCE */
    case 3: /* REFOCUSED */
    case 4: /* OUTLIER */
    case 5: /* DEPARTED */
    case 6: /* INCONSISTENT */
        return 1;
    default:
        return 0;
    }
}

/* 1 when `v` is the type of a message from the device, else 0. */
static inline int oracle_device_type(long v)
{
    switch (v) {
    case 0x81: /* INFO */
    case 0x82: /* CONFIGURED */
    case 0x83: /* POSTERIOR */
    case 0x85: /* SYSTEM */
    case 0x84: /* RESET_DONE */
    case 0x7F: /* ERROR */
        return 1;
    default:
        return 0;
    }
}

/* 1 when `v` is an ERROR code of the protocol, else 0. */
static inline int oracle_error_code(long v)
{
    switch (v) {
    case 1: /* CRC */
    case 2: /* LENGTH */
    case 3: /* TOO_LONG */
    case 4: /* TYPE */
    case 5: /* VERSION */
    case 6: /* NOT_CONFIGURED */
    case 7: /* CONFIG */
    case 8: /* EVIDENCE */
    case 9: /* COBS */
    case 10: /* INTERNAL */
        return 1;
    default:
        return 0;
    }
}

#endif /* FUZZ_ORACLE_H */
