/* ux/ux.h — the whole public API of the ux core in one include. */
#ifndef UX_UX_H
#define UX_UX_H

#include "bayes.h"
#include "config.h"
#include "filter.h"
#include "joint.h"
#include "joint_bayes.h"
#include "joint_cells.h"
#include "joint_filter.h"
#include "joint_model.h"
#include "law.h"
#include "lift.h"
#include "model.h"
#include "pdf.h"
#include "stats.h"
#include "ttr.h"
#include "value.h"
#include "workspace.h"

#endif /* UX_UX_H */
