//go:build cuda

package cudadrv

/*
#cgo LDFLAGS: -ldl
#include <cuda.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

// The driver entry points gshmem uses, resolved from libcuda.so.1 at run
// time: a binary built with -tags cuda starts on a machine without the
// driver and reports that, instead of failing in the dynamic loader.
typedef struct {
	CUresult (*Init)(unsigned);
	CUresult (*DriverGetVersion)(int *);
	CUresult (*GetErrorName)(CUresult, const char **);
	CUresult (*GetErrorString)(CUresult, const char **);
	CUresult (*DeviceGetCount)(int *);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DeviceGetName)(char *, int, CUdevice);
	CUresult (*DeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
	CUresult (*DeviceGetUuid)(CUuuid *, CUdevice);
	CUresult (*DeviceCanAccessPeer)(int *, CUdevice, CUdevice);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*DevicePrimaryCtxRelease)(CUdevice);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*CtxSynchronize)(void);
	CUresult (*CtxEnablePeerAccess)(CUcontext, unsigned);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*MemFree)(CUdeviceptr);
	CUresult (*MemAllocHost)(void **, size_t);
	CUresult (*MemFreeHost)(void *);
	CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
	CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
	CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
	CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
	CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
	CUresult (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
	CUresult (*MemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
	CUresult (*StreamCreate)(CUstream *, unsigned);
	CUresult (*StreamDestroy)(CUstream);
	CUresult (*StreamSynchronize)(CUstream);
	CUresult (*StreamQuery)(CUstream);
	CUresult (*StreamWaitEvent)(CUstream, CUevent, unsigned);
	CUresult (*StreamWriteValue32)(CUstream, CUdeviceptr, cuuint32_t, unsigned);
	CUresult (*StreamWriteValue64)(CUstream, CUdeviceptr, cuuint64_t, unsigned);
	CUresult (*StreamWaitValue64)(CUstream, CUdeviceptr, cuuint64_t, unsigned);
	CUresult (*StreamBeginCapture)(CUstream, CUstreamCaptureMode);
	CUresult (*StreamEndCapture)(CUstream, CUgraph *);
	CUresult (*GraphGetNodes)(CUgraph, CUgraphNode *, size_t *);
	CUresult (*GraphInstantiateWithFlags)(CUgraphExec *, CUgraph, unsigned long long);
	CUresult (*GraphExecMemcpyNodeSetParams)(CUgraphExec, CUgraphNode, const CUDA_MEMCPY3D *, CUcontext);
	CUresult (*GraphLaunch)(CUgraphExec, CUstream);
	CUresult (*GraphDestroy)(CUgraph);
	CUresult (*GraphExecDestroy)(CUgraphExec);
	CUresult (*StreamIsCapturing)(CUstream, CUstreamCaptureStatus *);
	CUresult (*EventCreate)(CUevent *, unsigned);
	CUresult (*EventDestroy)(CUevent);
	CUresult (*EventRecord)(CUevent, CUstream);
	CUresult (*EventSynchronize)(CUevent);
	CUresult (*EventQuery)(CUevent);
	CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
	CUresult (*IpcGetMemHandle)(CUipcMemHandle *, CUdeviceptr);
	CUresult (*IpcOpenMemHandle)(CUdeviceptr *, CUipcMemHandle, unsigned);
	CUresult (*IpcCloseMemHandle)(CUdeviceptr);
	CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, CUjit_option *, void **);
	CUresult (*ModuleUnload)(CUmodule);
	CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*ModuleGetGlobal)(CUdeviceptr *, size_t *, CUmodule, const char *);
	CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
	                         CUstream, void **, void **);
	CUresult (*LaunchCooperativeKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
	                                    unsigned, CUstream, void **);
	CUresult (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
	CUresult (*LaunchHostFunc)(CUstream, CUhostFn, void *);
	CUresult (*PointerGetAttribute)(void *, CUpointer_attribute, CUdeviceptr);
	CUresult (*PointerGetAttributes)(unsigned, CUpointer_attribute *, void **, CUdeviceptr);
} gs_api_t;

static gs_api_t gs;
static char gs_err[512];

static int gs_sym(void *lib, void **slot, const char *a, const char *b) {
	*slot = dlsym(lib, a);
	if (!*slot && b) *slot = dlsym(lib, b);
	return *slot != NULL;
}

// gs_load opens the driver; it returns NULL or why it could not.
static const char *gs_load(void) {
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
	if (!lib) {
		snprintf(gs_err, sizeof gs_err, "cannot load libcuda.so.1 (is the NVIDIA driver installed?): %s", dlerror());
		return gs_err;
	}
#define REQ(f, a, b) if (!gs_sym(lib, (void **)&gs.f, a, b)) { snprintf(gs_err, sizeof gs_err, "libcuda.so.1 lacks %s", a); return gs_err; }
#define OPT(f, a, b) gs_sym(lib, (void **)&gs.f, a, b);
	REQ(Init, "cuInit", NULL)
	REQ(DriverGetVersion, "cuDriverGetVersion", NULL)
	REQ(GetErrorName, "cuGetErrorName", NULL)
	REQ(GetErrorString, "cuGetErrorString", NULL)
	REQ(DeviceGetCount, "cuDeviceGetCount", NULL)
	REQ(DeviceGet, "cuDeviceGet", NULL)
	REQ(DeviceGetName, "cuDeviceGetName", NULL)
	REQ(DeviceGetAttribute, "cuDeviceGetAttribute", NULL)
	OPT(DeviceGetUuid, "cuDeviceGetUuid_v2", "cuDeviceGetUuid")
	REQ(DeviceCanAccessPeer, "cuDeviceCanAccessPeer", NULL)
	REQ(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL)
	REQ(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease")
	REQ(CtxSetCurrent, "cuCtxSetCurrent", NULL)
	REQ(CtxSynchronize, "cuCtxSynchronize", NULL)
	REQ(CtxEnablePeerAccess, "cuCtxEnablePeerAccess", NULL)
	REQ(MemAlloc, "cuMemAlloc_v2", NULL)
	REQ(MemFree, "cuMemFree_v2", NULL)
	REQ(MemAllocHost, "cuMemAllocHost_v2", NULL)
	REQ(MemFreeHost, "cuMemFreeHost", NULL)
	REQ(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", NULL)
	REQ(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", NULL)
	REQ(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", NULL)
	REQ(MemcpyHtoD, "cuMemcpyHtoD_v2", NULL)
	REQ(MemcpyDtoH, "cuMemcpyDtoH_v2", NULL)
	REQ(MemcpyDtoD, "cuMemcpyDtoD_v2", NULL)
	REQ(MemsetD8Async, "cuMemsetD8Async", NULL)
	REQ(StreamCreate, "cuStreamCreate", NULL)
	REQ(StreamDestroy, "cuStreamDestroy_v2", NULL)
	REQ(StreamSynchronize, "cuStreamSynchronize", NULL)
	REQ(StreamQuery, "cuStreamQuery", NULL)
	REQ(StreamWaitEvent, "cuStreamWaitEvent", NULL)
	OPT(StreamWriteValue32, "cuStreamWriteValue32_v2", "cuStreamWriteValue32")
	OPT(StreamWriteValue64, "cuStreamWriteValue64_v2", "cuStreamWriteValue64")
	OPT(StreamWaitValue64, "cuStreamWaitValue64_v2", "cuStreamWaitValue64")
	OPT(StreamBeginCapture, "cuStreamBeginCapture_v2", NULL)
	OPT(StreamEndCapture, "cuStreamEndCapture", NULL)
	OPT(GraphGetNodes, "cuGraphGetNodes", NULL)
	OPT(GraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", NULL)
	OPT(GraphExecMemcpyNodeSetParams, "cuGraphExecMemcpyNodeSetParams", NULL)
	OPT(GraphLaunch, "cuGraphLaunch", NULL)
	OPT(GraphDestroy, "cuGraphDestroy", NULL)
	OPT(GraphExecDestroy, "cuGraphExecDestroy", NULL)
	OPT(StreamIsCapturing, "cuStreamIsCapturing", NULL)
	REQ(EventCreate, "cuEventCreate", NULL)
	REQ(EventDestroy, "cuEventDestroy_v2", NULL)
	REQ(EventRecord, "cuEventRecord", NULL)
	REQ(EventSynchronize, "cuEventSynchronize", NULL)
	REQ(EventQuery, "cuEventQuery", NULL)
	REQ(EventElapsedTime, "cuEventElapsedTime", NULL)
	REQ(IpcGetMemHandle, "cuIpcGetMemHandle", NULL)
	REQ(IpcOpenMemHandle, "cuIpcOpenMemHandle_v2", "cuIpcOpenMemHandle")
	REQ(IpcCloseMemHandle, "cuIpcCloseMemHandle", NULL)
	REQ(ModuleLoadDataEx, "cuModuleLoadDataEx", NULL)
	REQ(ModuleUnload, "cuModuleUnload", NULL)
	REQ(ModuleGetFunction, "cuModuleGetFunction", NULL)
	REQ(ModuleGetGlobal, "cuModuleGetGlobal_v2", NULL)
	REQ(LaunchKernel, "cuLaunchKernel", NULL)
	OPT(LaunchCooperativeKernel, "cuLaunchCooperativeKernel", NULL)
	REQ(OccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor", NULL)
	OPT(LaunchHostFunc, "cuLaunchHostFunc", NULL)
	REQ(PointerGetAttribute, "cuPointerGetAttribute", NULL)
	OPT(PointerGetAttributes, "cuPointerGetAttributes", NULL)
#undef REQ
#undef OPT
	return NULL;
}

static int gs_has_memops(void) { return gs.StreamWriteValue64 && gs.StreamWaitValue64 && gs.StreamWriteValue32; }
static int gs_has_coop(void) { return gs.LaunchCooperativeKernel != NULL; }

static CUresult gs_init(void) { return gs.Init(0); }
static CUresult gs_driver_version(int *v) { return gs.DriverGetVersion(v); }
static const char *gs_err_name(CUresult r) { const char *s = 0; if (gs.GetErrorName) gs.GetErrorName(r, &s); return s; }
static const char *gs_err_string(CUresult r) { const char *s = 0; if (gs.GetErrorString) gs.GetErrorString(r, &s); return s; }
static CUresult gs_device_count(int *n) { return gs.DeviceGetCount(n); }
static CUresult gs_device_name(int ord, char *buf, int len) {
	CUdevice d; CUresult r = gs.DeviceGet(&d, ord); if (r) return r; return gs.DeviceGetName(buf, len, d);
}
static CUresult gs_device_attr(int ord, int attr, int *v) {
	CUdevice d; CUresult r = gs.DeviceGet(&d, ord); if (r) return r; return gs.DeviceGetAttribute(v, (CUdevice_attribute)attr, d);
}
static CUresult gs_device_uuid(int ord, char *out) {
	CUdevice d; CUresult r = gs.DeviceGet(&d, ord); if (r) return r;
	if (!gs.DeviceGetUuid) { memset(out, 0, 16); return CUDA_SUCCESS; }
	CUuuid u; r = gs.DeviceGetUuid(&u, d); if (r) return r; memcpy(out, u.bytes, 16); return CUDA_SUCCESS;
}
static CUresult gs_can_access_peer(int a, int b, int *v) {
	CUdevice da, db; CUresult r = gs.DeviceGet(&da, a); if (r) return r; r = gs.DeviceGet(&db, b); if (r) return r;
	return gs.DeviceCanAccessPeer(v, da, db);
}
static CUresult gs_primary_retain(int ord, CUcontext *c) {
	CUdevice d; CUresult r = gs.DeviceGet(&d, ord); if (r) return r; return gs.DevicePrimaryCtxRetain(c, d);
}
static CUresult gs_primary_release(int ord) {
	CUdevice d; CUresult r = gs.DeviceGet(&d, ord); if (r) return r; return gs.DevicePrimaryCtxRelease(d);
}

// Every call below makes ctx current on the calling thread first: Go moves
// goroutines between threads, so no call may rely on an earlier one's.
#define CUR(c) do { CUresult r_ = gs.CtxSetCurrent(c); if (r_) return r_; } while (0)

static CUresult gs_ctx_sync(CUcontext c) { CUR(c); return gs.CtxSynchronize(); }
static CUresult gs_enable_peer(CUcontext c, CUcontext peer) {
	CUR(c); CUresult r = gs.CtxEnablePeerAccess(peer, 0);
	return r == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED ? CUDA_SUCCESS : r;
}
static CUresult gs_mem_alloc(CUcontext c, CUdeviceptr *p, size_t n) { CUR(c); return gs.MemAlloc(p, n); }
static CUresult gs_mem_free(CUcontext c, CUdeviceptr p) { CUR(c); return gs.MemFree(p); }
static CUresult gs_mem_alloc_host(CUcontext c, void **p, size_t n) { CUR(c); return gs.MemAllocHost(p, n); }
static CUresult gs_mem_free_host(CUcontext c, void *p) { CUR(c); return gs.MemFreeHost(p); }
static CUresult gs_htod_async(CUcontext c, CUdeviceptr d, const void *h, size_t n, CUstream s) { CUR(c); return gs.MemcpyHtoDAsync(d, h, n, s); }
static CUresult gs_dtoh_async(CUcontext c, void *h, CUdeviceptr d, size_t n, CUstream s) { CUR(c); return gs.MemcpyDtoHAsync(h, d, n, s); }
static CUresult gs_dtod_async(CUcontext c, CUdeviceptr d, CUdeviceptr s_, size_t n, CUstream s) { CUR(c); return gs.MemcpyDtoDAsync(d, s_, n, s); }
static CUresult gs_htod(CUcontext c, CUdeviceptr d, const void *h, size_t n) { CUR(c); return gs.MemcpyHtoD(d, h, n); }
static CUresult gs_dtoh(CUcontext c, void *h, CUdeviceptr d, size_t n) { CUR(c); return gs.MemcpyDtoH(h, d, n); }
static CUresult gs_dtod(CUcontext c, CUdeviceptr d, CUdeviceptr s, size_t n) { CUR(c); return gs.MemcpyDtoD(d, s, n); }
static CUresult gs_memset_async(CUcontext c, CUdeviceptr d, unsigned char v, size_t n, CUstream s) { CUR(c); return gs.MemsetD8Async(d, v, n, s); }
// A synchronous read of a small device range through pinned memory.
static CUresult gs_dtoh_sync(CUcontext c, void *h, CUdeviceptr d, size_t n, CUstream s) {
	CUR(c); CUresult r = gs.MemcpyDtoHAsync(h, d, n, s); if (r) return r; return gs.StreamSynchronize(s);
}
static CUresult gs_stream_create(CUcontext c, CUstream *s, unsigned flags) { CUR(c); return gs.StreamCreate(s, flags); }
static CUresult gs_stream_destroy(CUcontext c, CUstream s) { CUR(c); return gs.StreamDestroy(s); }
static CUresult gs_stream_sync(CUcontext c, CUstream s) { CUR(c); return gs.StreamSynchronize(s); }
static CUresult gs_stream_query(CUcontext c, CUstream s) { CUR(c); return gs.StreamQuery(s); }
static CUresult gs_stream_wait_event(CUcontext c, CUstream s, CUevent e) { CUR(c); return gs.StreamWaitEvent(s, e, 0); }
static CUresult gs_write_value32(CUcontext c, CUstream s, CUdeviceptr p, cuuint32_t v, unsigned f) { CUR(c); return gs.StreamWriteValue32(s, p, v, f); }
static CUresult gs_write_value64(CUcontext c, CUstream s, CUdeviceptr p, cuuint64_t v, unsigned f) { CUR(c); return gs.StreamWriteValue64(s, p, v, f); }
static CUresult gs_wait_value64(CUcontext c, CUstream s, CUdeviceptr p, cuuint64_t v, unsigned f) { CUR(c); return gs.StreamWaitValue64(s, p, v, f); }
// A graph of one device-to-device copy, captured on s (a stream of the
// caller's that nothing else uses), and its copy node.
static int gs_has_graphs(void) {
	return gs.StreamBeginCapture && gs.StreamEndCapture && gs.GraphGetNodes && gs.GraphInstantiateWithFlags &&
		gs.GraphExecMemcpyNodeSetParams && gs.GraphLaunch && gs.GraphDestroy && gs.GraphExecDestroy && gs.StreamIsCapturing;
}
// The graph outlives its instantiation: updates name the node by the
// graph's handle.
static CUresult gs_copy_graph(CUcontext c, CUstream s, CUdeviceptr d, CUdeviceptr src, size_t n, CUgraph *g, CUgraphExec *e, CUgraphNode *node) {
	if (!gs_has_graphs()) return CUDA_ERROR_NOT_SUPPORTED;
	CUR(c);
	CUresult r = gs.StreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED); if (r) return r;
	r = gs.MemcpyDtoDAsync(d, src, n, s);
	*g = 0;
	CUresult r2 = gs.StreamEndCapture(s, g);
	if (!r) r = r2;
	size_t k = 1;
	if (!r) r = gs.GraphGetNodes(*g, node, &k);
	if (!r && k != 1) r = CUDA_ERROR_UNKNOWN;
	if (!r) r = gs.GraphInstantiateWithFlags(e, *g, 0);
	if (r && *g) { gs.GraphDestroy(*g); *g = 0; }
	return r;
}
// Points the copy at new operands and launches it on s, unless s is
// capturing a graph of the caller's (*capturing is then set and nothing is
// done).
static CUresult gs_copy_graph_launch(CUcontext c, CUgraphExec e, CUgraphNode node, CUdeviceptr d, CUdeviceptr src, size_t n, CUstream s, int *capturing, int *stage) {
	CUR(c);
	CUstreamCaptureStatus st;
	*stage = 0;
	CUresult r = gs.StreamIsCapturing(s, &st); if (r) return r;
	*capturing = st != CU_STREAM_CAPTURE_STATUS_NONE;
	if (*capturing) return CUDA_SUCCESS;
	CUDA_MEMCPY3D p; memset(&p, 0, sizeof p);
	p.srcMemoryType = CU_MEMORYTYPE_DEVICE; p.srcDevice = src;
	p.dstMemoryType = CU_MEMORYTYPE_DEVICE; p.dstDevice = d;
	p.WidthInBytes = n; p.Height = 1; p.Depth = 1;
	*stage = 1;
	r = gs.GraphExecMemcpyNodeSetParams(e, node, &p, c); if (r) return r;
	*stage = 2;
	return gs.GraphLaunch(e, s);
}
static CUresult gs_copy_graph_destroy(CUcontext c, CUgraph g, CUgraphExec e) {
	CUR(c); CUresult r = gs.GraphExecDestroy(e); CUresult r2 = gs.GraphDestroy(g); return r ? r : r2;
}
static CUresult gs_event_create(CUcontext c, CUevent *e, unsigned f) { CUR(c); return gs.EventCreate(e, f); }
static CUresult gs_event_destroy(CUcontext c, CUevent e) { CUR(c); return gs.EventDestroy(e); }
static CUresult gs_event_record(CUcontext c, CUevent e, CUstream s) { CUR(c); return gs.EventRecord(e, s); }
static CUresult gs_event_sync(CUcontext c, CUevent e) { CUR(c); return gs.EventSynchronize(e); }
static CUresult gs_event_query(CUcontext c, CUevent e) { CUR(c); return gs.EventQuery(e); }
static CUresult gs_event_elapsed(CUcontext c, float *ms, CUevent a, CUevent b) { CUR(c); return gs.EventElapsedTime(ms, a, b); }
static CUresult gs_ipc_get(CUcontext c, void *out, CUdeviceptr p) {
	CUR(c); CUipcMemHandle h; CUresult r = gs.IpcGetMemHandle(&h, p); if (r) return r; memcpy(out, &h, sizeof h); return CUDA_SUCCESS;
}
static CUresult gs_ipc_open(CUcontext c, CUdeviceptr *p, const void *in) {
	CUR(c); CUipcMemHandle h; memcpy(&h, in, sizeof h);
	return gs.IpcOpenMemHandle(p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
}
static CUresult gs_ipc_close(CUcontext c, CUdeviceptr p) { CUR(c); return gs.IpcCloseMemHandle(p); }
static CUresult gs_module_load(CUcontext c, CUmodule *m, const char *image, char *log, unsigned loglen) {
	CUR(c);
	CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *vals[2] = {log, (void *)(size_t)loglen};
	return gs.ModuleLoadDataEx(m, image, 2, opts, vals);
}
static CUresult gs_module_unload(CUcontext c, CUmodule m) { CUR(c); return gs.ModuleUnload(m); }
static CUresult gs_module_function(CUcontext c, CUfunction *f, CUmodule m, const char *name) { CUR(c); return gs.ModuleGetFunction(f, m, name); }
static CUresult gs_module_global(CUcontext c, CUdeviceptr *p, size_t *n, CUmodule m, const char *name) { CUR(c); return gs.ModuleGetGlobal(p, n, m, name); }
// Kernel parameters arrive packed in one buffer (args) with each
// parameter's offset (offs); the driver gets pointers into it.
static CUresult gs_launch(CUcontext c, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                          unsigned bz, unsigned shm, CUstream s, char *args, const int *offs, int nargs, int coop) {
	CUR(c);
	void *ptrs[64];
	if (nargs > 64) return CUDA_ERROR_INVALID_VALUE;
	for (int i = 0; i < nargs; i++) ptrs[i] = args + offs[i];
	if (coop) {
		if (!gs.LaunchCooperativeKernel) return CUDA_ERROR_NOT_SUPPORTED;
		return gs.LaunchCooperativeKernel(f, gx, gy, gz, bx, by, bz, shm, s, ptrs);
	}
	return gs.LaunchKernel(f, gx, gy, gz, bx, by, bz, shm, s, ptrs, NULL);
}
static CUresult gs_occupancy(CUcontext c, int *n, CUfunction f, int block, size_t shm) {
	CUR(c); return gs.OccupancyMaxActiveBlocksPerMultiprocessor(n, f, block, shm);
}
static CUresult gs_pointer_device(CUcontext c, CUdeviceptr p, int *ord) {
	CUR(c); return gs.PointerGetAttribute(ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p);
}
// What the driver knows of p (pointer.go): its memory type (0 for memory
// it does not know), and for its allocations the range and buffer id, in
// one call where the driver has cuPointerGetAttributes, which answers for
// unknown memory too instead of failing.
void gs_pointer_info(CUdeviceptr p, unsigned *type, unsigned long long *start, unsigned long long *size, unsigned long long *id) {
	CUdeviceptr st = 0; size_t sz = 0; unsigned long long bid = 0; unsigned t = 0;
	if (gs.PointerGetAttributes) {
		CUpointer_attribute a[4] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
		                            CU_POINTER_ATTRIBUTE_RANGE_SIZE, CU_POINTER_ATTRIBUTE_BUFFER_ID};
		void *v[4] = {&t, &st, &sz, &bid};
		if (gs.PointerGetAttributes(4, a, v, p) == CUDA_SUCCESS) {
			*type = t; *start = st; *size = sz; *id = bid;
			return;
		}
		// Memory for which one of the four has no answer: one at a time.
		t = 0; st = 0; sz = 0; bid = 0;
	}
	if (gs.PointerGetAttribute(&t, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) != CUDA_SUCCESS) {
		t = 0;
	} else {
		if (gs.PointerGetAttribute(&st, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, p) != CUDA_SUCCESS) st = 0;
		if (gs.PointerGetAttribute(&sz, CU_POINTER_ATTRIBUTE_RANGE_SIZE, p) != CUDA_SUCCESS) sz = 0;
		if (gs.PointerGetAttribute(&bid, CU_POINTER_ATTRIBUTE_BUFFER_ID, p) != CUDA_SUCCESS) bid = 0;
	}
	*type = t; *start = st; *size = sz; *id = bid;
}
// Synchronous copies on the legacy default stream, between device memory
// and pinned (or C) memory: ordered after the caller's default-stream work,
// and complete when they return.
CUresult gs_copy_dtoh_sync(CUcontext c, void *h, CUdeviceptr d, size_t n) { CUR(c); return gs.MemcpyDtoH(h, d, n); }
CUresult gs_copy_htod_sync(CUcontext c, CUdeviceptr d, const void *h, size_t n) { CUR(c); return gs.MemcpyHtoD(d, h, n); }
extern void gsHostFn(void *);
CUresult gs_launch_host_func(CUcontext c, CUstream s, size_t handle) {
	CUR(c);
	if (!gs.LaunchHostFunc) return CUDA_ERROR_NOT_SUPPORTED;
	return gs.LaunchHostFunc(s, gsHostFn, (void *)handle);
}
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
	"unsafe"
)

// Result is a CUresult other than CUDA_SUCCESS.
type Result int

func (r Result) Error() string {
	name, str := C.gs_err_name(C.CUresult(r)), C.gs_err_string(C.CUresult(r))
	if name == nil {
		return fmt.Sprintf("CUDA error %d", int(r))
	}
	return fmt.Sprintf("%s (%d): %s", C.GoString(name), int(r), C.GoString(str))
}

// Some results callers test for.
const (
	ErrorNotReady          Result = C.CUDA_ERROR_NOT_READY
	ErrorNoDevice          Result = C.CUDA_ERROR_NO_DEVICE
	ErrorNotSupported      Result = C.CUDA_ERROR_NOT_SUPPORTED
	ErrorPeerAccessEnabled Result = C.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
)

func check(r C.CUresult) error {
	if r == C.CUDA_SUCCESS {
		return nil
	}
	return Result(r)
}

var (
	loadOnce sync.Once
	loadErr  error
)

// Load opens the driver and initializes it, once per process. It fails
// (wrapping ErrNoDriver or ErrNoDevice) on a machine without a usable GPU.
func Load() error {
	loadOnce.Do(func() {
		// The driver maps a context's streams onto this many hardware
		// queues (8 by default). Kernels that wait for peers' kernels (the
		// team collectives, device barriers) deadlock when a peer's stream
		// shares a queue with a waiting kernel and its work sits behind it,
		// which several PEs of one process (one context, a few streams
		// each) reach quickly: ask for the most queues, unless the user
		// chose or an MPS server may serve this process (4 MPS clients with
		// 32 each failed to make their contexts on an H200: out of memory;
		// a process of one PE has few streams). Read when the first context
		// is made.
		if _, set := os.LookupEnv("CUDA_DEVICE_MAX_CONNECTIONS"); !set && !mpsLikely() {
			_ = os.Setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32")
		}
		if msg := C.gs_load(); msg != nil {
			loadErr = fmt.Errorf("%w: %s", ErrNoDriver, C.GoString(msg))
			return
		}
		if r := C.gs_init(); r != C.CUDA_SUCCESS {
			if Result(r) == ErrorNoDevice {
				loadErr = fmt.Errorf("%w: cuInit: %v", ErrNoDevice, Result(r))
			} else {
				loadErr = fmt.Errorf("%w: cuInit: %v", ErrNoDriver, Result(r))
			}
			return
		}
		var n C.int
		if r := C.gs_device_count(&n); r != C.CUDA_SUCCESS || n == 0 {
			loadErr = fmt.Errorf("%w: the driver sees no GPU", ErrNoDevice)
		}
	})
	return loadErr
}

// mpsLikely reports whether an MPS control daemon may serve this process:
// its pipe directory is named, or the default one exists.
func mpsLikely() bool {
	if _, set := os.LookupEnv("CUDA_MPS_PIPE_DIRECTORY"); set {
		return true
	}
	_, err := os.Stat("/tmp/nvidia-mps")
	return err == nil
}

// Available reports whether a GPU can be used, and why not.
func Available() (bool, error) {
	err := Load()
	return err == nil, err
}

// DriverVersion returns the driver's CUDA version (e.g. 13000).
func DriverVersion() int {
	var v C.int
	if Load() != nil || C.gs_driver_version(&v) != C.CUDA_SUCCESS {
		return 0
	}
	return int(v)
}

// HasStreamMemOps reports whether the driver has the 32/64-bit stream
// memory operations (write and wait value).
func HasStreamMemOps() bool { return Load() == nil && C.gs_has_memops() != 0 }

// DeviceCount returns the number of visible GPUs.
func DeviceCount() (int, error) {
	if err := Load(); err != nil {
		return 0, err
	}
	var n C.int
	return int(n), check(C.gs_device_count(&n))
}

// DeviceName returns the GPU's name.
func DeviceName(ord int) (string, error) {
	buf := make([]byte, 256)
	if err := check(C.gs_device_name(C.int(ord), (*C.char)(unsafe.Pointer(&buf[0])), 256)); err != nil {
		return "", err
	}
	return C.GoString((*C.char)(unsafe.Pointer(&buf[0]))), nil
}

// DeviceUUID returns the GPU's UUID (zero if the driver cannot say).
func DeviceUUID(ord int) ([16]byte, error) {
	var u [16]byte
	err := check(C.gs_device_uuid(C.int(ord), (*C.char)(unsafe.Pointer(&u[0]))))
	return u, err
}

// Device attributes used here (CUdevice_attribute).
const (
	AttrMultiprocessorCount    = C.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
	AttrComputeCapabilityMajor = C.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
	AttrComputeCapabilityMinor = C.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
	AttrCanUseStreamMemOps     = C.CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS
	AttrCanUse64BitMemOps      = C.CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS
	AttrCooperativeLaunch      = C.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH
	AttrPCIBusID               = C.CU_DEVICE_ATTRIBUTE_PCI_BUS_ID
	AttrPCIDeviceID            = C.CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID
	AttrPCIDomainID            = C.CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID
)

// DeviceAttribute returns one attribute of the GPU.
func DeviceAttribute(ord, attr int) (int, error) {
	var v C.int
	err := check(C.gs_device_attr(C.int(ord), C.int(attr), &v))
	return int(v), err
}

// CanAccessPeer reports whether GPU a can map GPU b's memory.
func CanAccessPeer(a, b int) (bool, error) {
	var v C.int
	err := check(C.gs_can_access_peer(C.int(a), C.int(b), &v))
	return v != 0, err
}

// Context is a CUcontext. Every method makes it current on the calling
// thread before calling the driver.
type Context struct{ h C.CUcontext }

func (c Context) c() C.CUcontext { return c.h }

// Uintptr returns the CUcontext handle, for the caller's own cgo.
func (c Context) Uintptr() uintptr { return uintptr(unsafe.Pointer(c.h)) }

// ContextFromUintptr wraps a CUcontext handle (from shmem.Device.Context).
func ContextFromUintptr(u uintptr) Context { return Context{*(*C.CUcontext)(unsafe.Pointer(&u))} }

// IsZero reports whether c is the zero Context.
func (c Context) IsZero() bool { return c.h == nil }

// RetainPrimary returns the GPU's primary context (shared by every user in
// the process), retaining it.
func RetainPrimary(ord int) (Context, error) {
	if err := Load(); err != nil {
		return Context{}, err
	}
	var c C.CUcontext
	err := check(C.gs_primary_retain(C.int(ord), &c))
	return Context{c}, err
}

// ReleasePrimary releases a RetainPrimary.
func ReleasePrimary(ord int) error { return check(C.gs_primary_release(C.int(ord))) }

// Synchronize waits for all work in the context.
func (c Context) Synchronize() error { return check(C.gs_ctx_sync(c.c())) }

// EnablePeerAccess lets c map peer's allocations (another GPU's context).
func (c Context) EnablePeerAccess(peer Context) error {
	return check(C.gs_enable_peer(c.c(), peer.c()))
}

// DevPtr is a device address.
type DevPtr uint64

func (p DevPtr) c() C.CUdeviceptr { return C.CUdeviceptr(p) }

// MemAlloc allocates n bytes of device memory.
func (c Context) MemAlloc(n uint64) (DevPtr, error) {
	var p C.CUdeviceptr
	err := check(C.gs_mem_alloc(c.c(), &p, C.size_t(n)))
	return DevPtr(p), err
}

// MemFree frees device memory.
func (c Context) MemFree(p DevPtr) error { return check(C.gs_mem_free(c.c(), p.c())) }

// MemAllocHost allocates n bytes of pinned host memory, mapped into the
// device's address space at the same address (unified addressing).
func (c Context) MemAllocHost(n int) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	err := check(C.gs_mem_alloc_host(c.c(), &p, C.size_t(n)))
	return p, err
}

// MemFreeHost frees MemAllocHost memory.
func (c Context) MemFreeHost(p unsafe.Pointer) error { return check(C.gs_mem_free_host(c.c(), p)) }

// Stream is a CUstream (0: the legacy default stream).
type Stream struct{ h C.CUstream }

func (s Stream) c() C.CUstream { return s.h }

// Uintptr returns the CUstream handle, for the caller's own cgo.
func (s Stream) Uintptr() uintptr { return uintptr(unsafe.Pointer(s.h)) }

// StreamFromUintptr wraps a CUstream handle made elsewhere (by the
// caller's own CUDA code, in the same context).
func StreamFromUintptr(u uintptr) Stream { return Stream{*(*C.CUstream)(unsafe.Pointer(&u))} }

// StreamLegacy is the context's legacy default stream (CU_STREAM_LEGACY),
// on which cuMemcpy and kernels launched on stream 0 run.
var StreamLegacy = StreamFromUintptr(1)

// StreamNonBlocking makes a stream that does not synchronize with the
// legacy default stream.
const StreamNonBlocking = C.CU_STREAM_NON_BLOCKING

// NewStream creates a stream.
func (c Context) NewStream(flags uint) (Stream, error) {
	var s C.CUstream
	err := check(C.gs_stream_create(c.c(), &s, C.uint(flags)))
	return Stream{s}, err
}

// DestroyStream destroys a stream once its work is done.
func (c Context) DestroyStream(s Stream) error { return check(C.gs_stream_destroy(c.c(), s.c())) }

// StreamSynchronize waits for the stream's work.
func (c Context) StreamSynchronize(s Stream) error { return check(C.gs_stream_sync(c.c(), s.c())) }

// StreamQuery reports whether the stream's work is done (ErrorNotReady if not).
func (c Context) StreamQuery(s Stream) error { return check(C.gs_stream_query(c.c(), s.c())) }

// StreamWaitEvent makes s wait for e.
func (c Context) StreamWaitEvent(s Stream, e Event) error {
	return check(C.gs_stream_wait_event(c.c(), s.c(), e.c()))
}

func hostPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// CopyHtoDAsync copies src to dst on s. From pageable memory it returns
// once src has been staged, so src may be reused at once.
func (c Context) CopyHtoDAsync(dst DevPtr, src []byte, s Stream) error {
	if len(src) == 0 {
		return nil
	}
	return check(C.gs_htod_async(c.c(), dst.c(), hostPtr(src), C.size_t(len(src)), s.c()))
}

// CopyHtoDAsyncPtr is CopyHtoDAsync from C or pinned memory.
func (c Context) CopyHtoDAsyncPtr(dst DevPtr, src unsafe.Pointer, n uint64, s Stream) error {
	return check(C.gs_htod_async(c.c(), dst.c(), src, C.size_t(n), s.c()))
}

// CopyDtoHAsyncPtr copies n bytes to pinned or C memory dst on s.
func (c Context) CopyDtoHAsyncPtr(dst unsafe.Pointer, src DevPtr, n uint64, s Stream) error {
	return check(C.gs_dtoh_async(c.c(), dst, src.c(), C.size_t(n), s.c()))
}

// CopyDtoHSync copies to pinned or C memory on s and waits for s.
func (c Context) CopyDtoHSync(dst unsafe.Pointer, src DevPtr, n uint64, s Stream) error {
	return check(C.gs_dtoh_sync(c.c(), dst, src.c(), C.size_t(n), s.c()))
}

// CopyDtoH copies to Go memory dst after the work on s (pageable memory:
// the call returns when the copy is done).
func (c Context) CopyDtoH(dst []byte, src DevPtr, s Stream) error {
	if len(dst) == 0 {
		return nil
	}
	if err := check(C.gs_dtoh_async(c.c(), hostPtr(dst), src.c(), C.size_t(len(dst)), s.c())); err != nil {
		return err
	}
	return check(C.gs_stream_sync(c.c(), s.c()))
}

// CopyDtoDAsync copies n bytes between device addresses on s.
func (c Context) CopyDtoDAsync(dst, src DevPtr, n uint64, s Stream) error {
	return check(C.gs_dtod_async(c.c(), dst.c(), src.c(), C.size_t(n), s.c()))
}

// CopyDtoD copies n bytes between device addresses, synchronously.
func (c Context) CopyDtoD(dst, src DevPtr, n uint64) error {
	return check(C.gs_dtod(c.c(), dst.c(), src.c(), C.size_t(n)))
}

// CopyHtoD copies synchronously from Go memory.
func (c Context) CopyHtoD(dst DevPtr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	return check(C.gs_htod(c.c(), dst.c(), hostPtr(src), C.size_t(len(src))))
}

// MemsetAsync sets n bytes at p to v on s.
func (c Context) MemsetAsync(p DevPtr, v byte, n uint64, s Stream) error {
	return check(C.gs_memset_async(c.c(), p.c(), C.uchar(v), C.size_t(n), s.c()))
}

// Stream memory operation flags.
const (
	WaitValueGEQ              = C.CU_STREAM_WAIT_VALUE_GEQ
	WaitValueEQ               = C.CU_STREAM_WAIT_VALUE_EQ
	WaitValueAND              = C.CU_STREAM_WAIT_VALUE_AND
	WaitValueNOR              = C.CU_STREAM_WAIT_VALUE_NOR
	WaitValueFlush            = C.CU_STREAM_WAIT_VALUE_FLUSH
	WriteValueDefault         = C.CU_STREAM_WRITE_VALUE_DEFAULT
	WriteValueNoMemoryBarrier = C.CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER
)

// WriteValue64 writes v to p when s reaches it (after the stream's earlier
// work, with a memory barrier unless flags say otherwise).
func (c Context) WriteValue64(s Stream, p DevPtr, v uint64, flags uint) error {
	return check(C.gs_write_value64(c.c(), s.c(), p.c(), C.cuuint64_t(v), C.uint(flags)))
}

// WriteValue32 is WriteValue64 for a 32-bit word.
func (c Context) WriteValue32(s Stream, p DevPtr, v uint32, flags uint) error {
	return check(C.gs_write_value32(c.c(), s.c(), p.c(), C.cuuint32_t(v), C.uint(flags)))
}

// WaitValue64 holds s until the word at p satisfies the condition.
func (c Context) WaitValue64(s Stream, p DevPtr, v uint64, flags uint) error {
	return check(C.gs_wait_value64(c.c(), s.c(), p.c(), C.cuuint64_t(v), C.uint(flags)))
}

// CopyGraph is an instantiated graph of one device-to-device copy whose
// operands are set at each launch. Launching it costs the host less than
// cuMemcpyDtoDAsync does (test/gpu/RESULTS.md). Launches of one CopyGraph
// are ordered after each other whatever their streams, so each stream
// needs its own.
type CopyGraph struct {
	g    C.CUgraph
	e    C.CUgraphExec
	node C.CUgraphNode
}

// HasGraphs reports whether the driver offers what CopyGraph needs.
func HasGraphs() bool { return C.gs_has_graphs() != 0 }

// NewCopyGraph captures a copy of n bytes from src to dst on capture, a
// stream nothing else uses while the call runs. The operands must lie in
// c's context or be mapped into it.
func (c Context) NewCopyGraph(capture Stream, dst, src DevPtr, n uint64) (CopyGraph, error) {
	var g CopyGraph
	err := check(C.gs_copy_graph(c.c(), capture.c(), dst.c(), src.c(), C.size_t(n), &g.g, &g.e, &g.node))
	return g, err
}

// LaunchCopy copies n bytes from src to dst on s through g. It does
// nothing and returns false when s is capturing a graph (a capture would
// hold the graph's operands of the moment, not the call's): the caller
// then copies by other means. The operands' memory must come from the
// contexts of those g was made with; n must not be 0. Calls on one g must
// not overlap.
func (c Context) LaunchCopy(g CopyGraph, s Stream, dst, src DevPtr, n uint64) (bool, error) {
	var capturing, stage C.int
	if err := check(C.gs_copy_graph_launch(c.c(), g.e, g.node, dst.c(), src.c(), C.size_t(n), s.c(), &capturing, &stage)); err != nil {
		return false, fmt.Errorf("%s: %w", [...]string{"cuStreamIsCapturing", "cuGraphExecMemcpyNodeSetParams", "cuGraphLaunch"}[stage], err)
	}
	return capturing == 0, nil
}

// DestroyCopyGraph releases g once its launches are done.
func (c Context) DestroyCopyGraph(g CopyGraph) error {
	return check(C.gs_copy_graph_destroy(c.c(), g.g, g.e))
}

// Event is a CUevent.
type Event struct{ h C.CUevent }

func (e Event) c() C.CUevent { return e.h }

// Event flags.
const (
	EventDefault       = C.CU_EVENT_DEFAULT
	EventDisableTiming = C.CU_EVENT_DISABLE_TIMING
)

// NewEvent creates an event.
func (c Context) NewEvent(flags uint) (Event, error) {
	var e C.CUevent
	err := check(C.gs_event_create(c.c(), &e, C.uint(flags)))
	return Event{e}, err
}

// DestroyEvent destroys an event.
func (c Context) DestroyEvent(e Event) error { return check(C.gs_event_destroy(c.c(), e.c())) }

// Record records e on s.
func (c Context) Record(e Event, s Stream) error {
	return check(C.gs_event_record(c.c(), e.c(), s.c()))
}

// EventSynchronize waits for e.
func (c Context) EventSynchronize(e Event) error { return check(C.gs_event_sync(c.c(), e.c())) }

// EventQuery reports whether e has completed (ErrorNotReady if not).
func (c Context) EventQuery(e Event) error { return check(C.gs_event_query(c.c(), e.c())) }

// Elapsed returns the milliseconds between two recorded events.
func (c Context) Elapsed(a, b Event) (float64, error) {
	var ms C.float
	err := check(C.gs_event_elapsed(c.c(), &ms, a.c(), b.c()))
	return float64(ms), err
}

// IPCHandleSize is the size of a CUipcMemHandle.
const IPCHandleSize = C.CU_IPC_HANDLE_SIZE

// IPCGetHandle returns the handle another process opens to map p's allocation.
func (c Context) IPCGetHandle(p DevPtr) ([]byte, error) {
	h := make([]byte, IPCHandleSize)
	err := check(C.gs_ipc_get(c.c(), unsafe.Pointer(&h[0]), p.c()))
	return h, err
}

// IPCOpen maps another process's allocation into c.
func (c Context) IPCOpen(h []byte) (DevPtr, error) {
	if len(h) != IPCHandleSize {
		return 0, fmt.Errorf("cuda: IPC handle of %d bytes, want %d", len(h), IPCHandleSize)
	}
	var p C.CUdeviceptr
	err := check(C.gs_ipc_open(c.c(), &p, unsafe.Pointer(&h[0])))
	return DevPtr(p), err
}

// IPCClose unmaps an IPCOpen mapping.
func (c Context) IPCClose(p DevPtr) error { return check(C.gs_ipc_close(c.c(), p.c())) }

// PointerDevice returns the ordinal of the GPU that holds p.
func (c Context) PointerDevice(p DevPtr) (int, error) {
	var ord C.int
	err := check(C.gs_pointer_device(c.c(), p.c(), &ord))
	return int(ord), err
}

// Module is a CUmodule.
type Module struct{ h C.CUmodule }

func (m Module) c() C.CUmodule { return m.h }

// ModuleFromUintptr wraps a CUmodule that C code loaded (gshmemx_cumodule_init).
func ModuleFromUintptr(u uintptr) Module { return Module{*(*C.CUmodule)(unsafe.Pointer(&u))} }

// LoadModule loads a PTX (or cubin, fatbin) image into c. A JIT failure
// carries the compiler's log.
func (c Context) LoadModule(image string) (Module, error) {
	img := C.CString(image)
	defer C.free(unsafe.Pointer(img))
	log := (*C.char)(C.calloc(8192, 1))
	defer C.free(unsafe.Pointer(log))
	var m C.CUmodule
	if err := check(C.gs_module_load(c.c(), &m, img, log, 8192)); err != nil {
		if s := C.GoString(log); s != "" {
			return Module{}, fmt.Errorf("%w: %s", err, s)
		}
		return Module{}, err
	}
	return Module{m}, nil
}

// UnloadModule unloads a module.
func (c Context) UnloadModule(m Module) error { return check(C.gs_module_unload(c.c(), m.c())) }

// Function is a CUfunction.
type Function struct{ h C.CUfunction }

func (f Function) c() C.CUfunction { return f.h }

// Function looks a kernel up by name.
func (c Context) Function(m Module, name string) (Function, error) {
	n := C.CString(name)
	defer C.free(unsafe.Pointer(n))
	var f C.CUfunction
	if err := check(C.gs_module_function(c.c(), &f, m.c(), n)); err != nil {
		return Function{}, fmt.Errorf("kernel %q: %w", name, err)
	}
	return Function{f}, nil
}

// Global returns a module-scope variable's address and size.
func (c Context) Global(m Module, name string) (DevPtr, uint64, error) {
	n := C.CString(name)
	defer C.free(unsafe.Pointer(n))
	var p C.CUdeviceptr
	var sz C.size_t
	err := check(C.gs_module_global(c.c(), &p, &sz, m.c(), n))
	return DevPtr(p), uint64(sz), err
}

// Dim3 is a grid or block shape; zero components count as 1.
type Dim3 struct{ X, Y, Z int }

func (d Dim3) dims() (C.uint, C.uint, C.uint) {
	f := func(v int) C.uint { return C.uint(max(v, 1)) }
	return f(d.X), f(d.Y), f(d.Z)
}

// Count returns X*Y*Z.
func (d Dim3) Count() int { return max(d.X, 1) * max(d.Y, 1) * max(d.Z, 1) }

// Args packs kernel parameters: each is copied by value at its natural
// alignment. Use Ptr, U64, I32, ... or Bytes for a struct.
type Args struct {
	buf  []byte
	offs []C.int
}

func (a *Args) add(p unsafe.Pointer, size, align int) *Args {
	off := (len(a.buf) + align - 1) &^ (align - 1)
	if n := off + size - len(a.buf); n > 0 {
		a.buf = append(a.buf, make([]byte, n)...)
	}
	copy(a.buf[off:], unsafe.Slice((*byte)(p), size))
	a.offs = append(a.offs, C.int(off))
	return a
}

// Ptr adds a device pointer.
func (a *Args) Ptr(p DevPtr) *Args { return a.add(unsafe.Pointer(&p), 8, 8) }

// U64 adds a 64-bit integer.
func (a *Args) U64(v uint64) *Args { return a.add(unsafe.Pointer(&v), 8, 8) }

// I64 adds a 64-bit signed integer.
func (a *Args) I64(v int64) *Args { return a.add(unsafe.Pointer(&v), 8, 8) }

// U32 adds a 32-bit integer.
func (a *Args) U32(v uint32) *Args { return a.add(unsafe.Pointer(&v), 4, 4) }

// I32 adds a 32-bit signed integer.
func (a *Args) I32(v int32) *Args { return a.add(unsafe.Pointer(&v), 4, 4) }

// F32 adds a float.
func (a *Args) F32(v float32) *Args { return a.add(unsafe.Pointer(&v), 4, 4) }

// F64 adds a double.
func (a *Args) F64(v float64) *Args { return a.add(unsafe.Pointer(&v), 8, 8) }

// Bytes adds a by-value parameter (a struct) of len(b) bytes with the
// given alignment.
func (a *Args) Bytes(b []byte, align int) *Args {
	if len(b) == 0 {
		return a
	}
	return a.add(unsafe.Pointer(&b[0]), len(b), align)
}

// Len returns the number of parameters.
func (a *Args) Len() int { return len(a.offs) }

// Launch launches f on s. coop asks for a cooperative launch (every block
// resident at once).
func (c Context) Launch(f Function, grid, block Dim3, shared int, s Stream, args *Args, coop bool) error {
	gx, gy, gz := grid.dims()
	bx, by, bz := block.dims()
	var buf *C.char
	var offs *C.int
	n := 0
	if args != nil && len(args.offs) > 0 {
		n = len(args.offs)
		// C memory: the driver reads the parameters during the call only,
		// but cgo forbids passing Go memory holding the pointer table.
		cb := C.malloc(C.size_t(len(args.buf)))
		defer C.free(cb)
		copy(unsafe.Slice((*byte)(cb), len(args.buf)), args.buf)
		buf = (*C.char)(cb)
		co := C.malloc(C.size_t(4 * n))
		defer C.free(co)
		copy(unsafe.Slice((*C.int)(co), n), args.offs)
		offs = (*C.int)(co)
	}
	cp := C.int(0)
	if coop {
		cp = 1
	}
	return check(C.gs_launch(c.c(), f.c(), gx, gy, gz, bx, by, bz, C.uint(shared), s.c(), buf, offs, C.int(n), cp))
}

// MaxActiveBlocksPerSM returns how many blocks of f fit on one
// multiprocessor at once.
func (c Context) MaxActiveBlocksPerSM(f Function, block, shared int) (int, error) {
	var n C.int
	err := check(C.gs_occupancy(c.c(), &n, f.c(), C.int(block), C.size_t(shared)))
	return int(n), err
}
