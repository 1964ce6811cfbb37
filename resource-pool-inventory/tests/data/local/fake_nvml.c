/* A stand-in for NVIDIA's libnvidia-ml.so.1 with the few entry points resource-pool
 * calls, for tests/local_inventory.rs (built there with `cc -shared`). Its answers come
 * from the environment:
 *   FAKE_NVML_GPUS        how many GPUs (default 2), named "NVIDIA H100 80GB HBM3"
 *   FAKE_NVML_INIT_FAILS  when set, nvmlInit_v2 returns NVML_ERROR_DRIVER_NOT_LOADED
 *   FAKE_NVML_NO_MEMORY   when set, the _v2 memory query is not supported (old drivers)
 *   FAKE_NVML_HANGS       when set, nvmlInit_v2 never returns (a wedged driver)
 * Signatures as in nvml.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int nvmlReturn_t;
enum { NVML_SUCCESS = 0, NVML_ERROR_INVALID_ARGUMENT = 2, NVML_ERROR_NOT_SUPPORTED = 3,
       NVML_ERROR_INSUFFICIENT_SIZE = 7, NVML_ERROR_DRIVER_NOT_LOADED = 9 };

typedef struct fake_device { unsigned int index; } *nvmlDevice_t;

typedef struct {
    unsigned int version;
    unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;

static struct fake_device devices[64];

static unsigned int gpu_count(void) {
    const char *text = getenv("FAKE_NVML_GPUS");
    unsigned int n = text ? (unsigned int)strtoul(text, NULL, 10) : 2;
    return n > 64 ? 64 : n;
}

nvmlReturn_t nvmlInit_v2(void) {
    while (getenv("FAKE_NVML_HANGS")) sleep(3600);
    return getenv("FAKE_NVML_INIT_FAILS") ? NVML_ERROR_DRIVER_NOT_LOADED : NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) { return NVML_SUCCESS; }

const char *nvmlErrorString(nvmlReturn_t result) { return result ? "fake error" : "Success"; }

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    *count = gpu_count();
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    if (index >= gpu_count()) return NVML_ERROR_INVALID_ARGUMENT;
    devices[index].index = index;
    *device = &devices[index];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
    (void)device;
    const char *text = "NVIDIA H100 80GB HBM3";
    if (length <= strlen(text)) return NVML_ERROR_INSUFFICIENT_SIZE;
    strcpy(name, text);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
    if ((unsigned int)snprintf(uuid, length, "GPU-fake-%u", device->index) >= length)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory) {
    (void)device;
    if (getenv("FAKE_NVML_NO_MEMORY")) return NVML_ERROR_NOT_SUPPORTED;
    memory->total = 81559ULL * 1024 * 1024;
    memory->reserved = 0;
    memory->free = memory->total;
    memory->used = 0;
    return NVML_SUCCESS;
}
