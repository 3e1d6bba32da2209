/* SPDX-License-Identifier: BSD-3-Clause */
#include "frag.h"
