# NCCL's all-reduce of 1 GiB of float32 through torch.distributed, the anchor
# of the multi-GPU sitting (test/gpu/run.sh multi): torchrun
# --nproc_per_node=NGPUS test/gpu/nccl_allreduce.py. NVLink multicast stays
# off (NCCL_NVLS_ENABLE=0 in the environment).
import os
import time

import torch
import torch.distributed as dist

dist.init_process_group("nccl")
rank, world = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)) % torch.cuda.device_count())
x = torch.ones(1 << 28, dtype=torch.float32, device="cuda")
for _ in range(3):
    dist.all_reduce(x)
torch.cuda.synchronize()
iters = 10
t0 = time.perf_counter()
for _ in range(iters):
    dist.all_reduce(x)
torch.cuda.synchronize()
ms = (time.perf_counter() - t0) * 1e3 / iters
if rank == 0:
    print(f"BENCH nccl torch.distributed all_reduce sum float32 1GiB on {world} GPUs {ms:10.3f} ms", flush=True)
dist.destroy_process_group()
