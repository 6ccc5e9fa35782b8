// GENERATED from firmware/src/models/systems.toml by scripts/codegen — do not edit by hand.
// Change the source and run `make generate`; tests fail when this file and its source drift apart.
#ifndef UX_SYSTEMS_LIMITS_H
#define UX_SYSTEMS_LIMITS_H

/* The largest state dimension of the table's joint systems: what a firmware sizes its joint workspace
 * for unless its board says otherwise (APP_JOINT_MAX_DIM). */
#define UX_JOINT_SYSTEMS_MAX_DIM 4

#endif /* UX_SYSTEMS_LIMITS_H */
