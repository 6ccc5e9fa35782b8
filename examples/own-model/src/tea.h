/* tea.h — a system of this project's own for the ux-filter library (src/tea.c). */
#ifndef TEA_H
#define TEA_H

#include "ux/model.h"

/* A cup of tea cooling toward the room, read by a sensor that saturates. Parameters, in this order:
 * k (cooling per step), room, q (process noise sd), r (sensor noise sd), s (the sensor's saturation). */
extern const ux_model tea_model;

#endif /* TEA_H */
