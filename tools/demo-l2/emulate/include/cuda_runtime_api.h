/* tools/demo-l2/emulate/include/cuda_runtime_api.h -- the emulation answers for the runtime API header too */
#include "cuda_runtime.h"
