// The lower-case spelling some course years use.
#include "CycleTimer.h"
