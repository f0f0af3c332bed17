"""Every parameter of the GPU recommendation (docs/performance-model.md): memory need, the speed model, ranking and
cost, cloud vs buy — each with its source and why it has this value. Workload and economic figures, not physics: the
physics models' parameters are in planner/physics/params.py."""

from planner.util.parameter import Param, Table

# -- GPU recommendation (planner/recommend/, docs/performance-model.md) ------------------------------------------------
# Memory need (planner/recommend/memory.py)
# Weight formats (bits per weight, which tensors stay 16-bit) and KV-cache types live with their sources in
# planner/recommend/formats.py, shared by the memory estimate and the speed model.
TRAINING_BYTES_PER_PARAMETER = Param(
    16, "B", "Rajbhandari et al. 2020, 'ZeRO' (arXiv:1910.02054) §3.1: mixed-precision Adam keeps 16-bit weights"
    " and gradients (2 + 2 B) and fp32 master weights, momentum and variance (12 B)", "full training or"
    " fine-tuning")
ACTIVATION_BYTES_FACTOR = Param(
    34, "B per token per hidden unit per layer", "Korthikanti et al. 2022, 'Reducing Activation Recomputation in"
    " Large Transformer Models' (arXiv:2205.05198): s·b·h·(34 + 5·a·s/h) bytes per layer in 16-bit; flash"
    " attention does not store the a·s² score term", "activations kept for the backward pass without checkpointing")
CHECKPOINT_BYTES_FACTOR = Param(
    2, "B per token per hidden unit per layer", "Korthikanti et al. 2022: with full activation checkpointing only"
    " each layer's 16-bit input (2·s·b·h) is kept, and one layer's activations are recomputed at a time",
    "activations with gradient checkpointing in full training (16-bit hidden states)")
#: Fine-tuning frameworks: (checkpointed bytes per token per hidden unit per layer, logits bytes per token per
#: vocabulary entry, bytes per trainable LoRA parameter, checkpoints offloaded to host memory by default 1/0).
FRAMEWORKS = Table(
    {"hf": (4.0, 16.0, 16.0, 0.0), "axolotl": (4.0, 16.0, 16.0, 0.0), "llama-factory": (4.0, 16.0, 16.0, 0.0),
     "unsloth": (2.0, 0.0, 6.0, 1.0)},
    "checkpoint B/(token·hidden·layer), logits B/(token·vocab), B per LoRA parameter, offload",
    "hf: PEFT's prepare_model_for_kbit_training casts norms to fp32, so the kept hidden states are fp32 (4 B);"
    " Transformers upcasts the logits to fp32 and the loss keeps log-softmax and its gradient (2 + 4 + 4 + 4 +"
    " 2 ≈ 16 B per vocabulary entry); PEFT adapters in fp32 with 32-bit AdamW (4 + 4 + 8 B). Fitted with the"
    " Unsloth blog's HF + FA2 maxima (Llama 3.1 8B: 28,000 tokens on 80 GB; Llama 3.3 70B: 6,916 on 80 GB, OOM on"
    " 48 GB). axolotl and LLaMA-Factory run the same Transformers + PEFT stack by default (their Liger / Unsloth"
    " options are not modelled). unsloth: offloaded gradient checkpointing keeps the layer inputs in host memory,"
    " chunked cross-entropy never holds the full logits, bf16 adapters with 8-bit AdamW (2 + 2 + 2 B)"
    " (unsloth.ai/blog/llama3-3: 342,000 tokens of Llama 3.1 8B and 89,389 of Llama 3.3 70B on 80 GB)",
    "what each framework keeps in GPU memory while fine-tuning with LoRA/QLoRA (docs/memory-model.md)")
DEQUANT_WORKSPACE_LAYERS = Param(
    2, "linear layers in 16-bit", "bitsandbytes dequantizes a 4-bit weight to 16-bit for each matmul, forward"
    " and backward; planner estimate: the largest linear layer twice", "QLoRA's working copy of a layer")
LORA_RANK = Param(
    16, "rank", "Hu et al. 2021, 'LoRA' (arXiv:2106.09685) and the QLoRA recipes use ranks 8–64 on every linear"
    " layer", "adapter size when --lora-rank is not given")
LORA_TRAINABLE_FRACTION = Param(
    0.006, "fraction of parameters", "rank-16 adapters on every linear layer of Llama 2 7B: 40 M of 6.74 B",
    "trainable share when the model's MLP width is unknown")
INFERENCE_CHUNK_TOKENS = Param(
    512, "tokens", "llama.cpp's default micro-batch (n_ubatch) for prompt processing",
    "tokens whose activations and logits are in memory at once during inference; a sliding-window layer keeps"
    " window + this many tokens (llama.cpp: pad(min(n_ctx, n_swa + n_ubatch), 256) cells, PR #13194)")
KV_CACHE_PADDING = Param(
    256, "tokens", "llama.cpp pads the KV cache to a multiple of 256 cells", "KV cache cells are rounded up to this")
DEFAULT_SHAPE_MODELS = ("llama-3.2-1b", "llama-3.2-3b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b")
# ^ --params without --model: the KV cache and activations of the Llama 3 nearest in size (an assumption)
CUDA_CONTEXT = Param(
    0.4, "GiB per GPU", "pytorch/pytorch#109888 (ptrblck): the CUDA context takes ~400 MB with CUDA >= 11.7 and lazy"
    " module loading; pytorch/pytorch#86509: 287 MB lazy, 667 MB eager; ROCm is assumed alike",
    "memory every GPU loses to the driver and kernels before the model's own data")
VLLM_NON_TORCH = Param(
    0.35, "GiB per GPU", "vLLM issue #10517 log (RTX 3090, Llama 3.1 8B, vLLM 0.6): non_torch_memory=0.35GiB; #13061"
    " (2 × RTX 4090, tensor parallel): 0.25 GiB; #14447 (RTX 4090s): 0.20 GiB", "memory vLLM/SGLang use outside"
    " PyTorch's allocator (cuBLAS workspaces, NCCL buffers), inside their memory fraction")
VLLM_V0_CHUNKED_ABOVE = Param(
    32768, "tokens", "vLLM V0 (2024) turned chunked prefill on by default when max_model_len exceeded 32k"
    " (vllm/engine/arg_utils.py, 0.5-0.6); issue #10517's profiling peak drops from 2.99 GiB at 29k to 0.06 at 35k",
    "below it, vLLM V0's profiling run is one whole max_model_len prompt")
VLLM_V0_CHUNK = Param(
    512, "tokens", "vLLM V0's default max_num_batched_tokens with chunked prefill (0.5-0.6; issue #10517: a 0.06 GiB"
    " activation peak at 35k)", "vLLM V0's profiling run above VLLM_V0_CHUNKED_ABOVE")
CUDA_GRAPHS = Param(
    0.5, "GiB per GPU", "estimate: vLLM logs 'Graph capturing finished ... took 0.3-1 GiB' for 7-70B models on one to"
    " eight cards; V0 captured them outside gpu_memory_utilization", "what CUDA graphs of vLLM/SGLang take from the"
    " share of the card their memory fraction leaves")
DISPLAY_RESERVATION = Param(
    0.8, "GiB", "ollama/ollama#5821: an idle RTX 3090 driving the Windows desktop (Disp.A On) shows 817 MiB used;"
    " an X11/Wayland desktop with a browser takes ~0.3–1 GiB (an estimate)", "--display: memory the desktop takes on"
    " the card that drives the monitor")
FRAGMENTATION_MARGIN = Param(
    0.02, "fraction of the card", "planner assumption, checked with the fit cases in tests/data/memory/fit_cases.csv:"
    " PyTorch's caching allocator and llama.cpp's buffers never fill a card to the last byte",
    "memory left unused by allocator fragmentation")
TIGHT_FIT = Param(
    0.05, "fraction of usable memory", "planner choice", "a fit with less spare than this is called tight")
MEMORY_FLOOR_TRANSFORMERS = Param(
    24, "GiB per GPU", "Dettmers 2023 (reference README): ≥ 24 GB for transformers",
    "need when an LLM workload names no model, parameter count or memory")
MEMORY_FLOOR_IMAGE_GENERATION = Param(
    12, "GiB per GPU", "Dettmers 2023 (reference README): ≥ 12 GB for image generation",
    "need when an image-generation workload names no model")
MEMORY_FLOOR_OTHER = Param(
    12, "GiB per GPU", "planner assumption, as for image generation", "need when a vision or general workload"
    " names no model")
DEFAULT_CONTEXT = Param(
    8192, "tokens", "planner assumption: a long chat or a document prompt; capped at the model's context length",
    "LLM inference context when --context is not given")
DEFAULT_TRAINING_SEQUENCE = Param(
    2048, "tokens", "planner assumption: the sequence length of common fine-tuning recipes",
    "LLM training/fine-tuning sequence length when --context is not given")
DEFAULT_VISION_BATCH = Param(
    64, "images per GPU", "planner assumption: a common ImageNet-style per-GPU batch", "vision training batch")
# Performance model (planner/recommend/perf.py): batched inference (Dettmers' 8- and 16-bit charts) is fitted to the
# calibration set in planner/recommend/calibration.py; decode, prefill and training to tests/data/perf/ below.
INFERENCE_BATCH = Param(
    512, "tokens", "fitted to RTX 4090 = 0.33 × H100 SXM for 8-bit inference (Dettmers 2023)", "batched"
    " inference: a 16-bit weight byte serves this many FLOP (8-bit: twice as many), so it is compute-bound")
ROOFLINE_SHARPNESS = Param(
    10, "exponent", "fitted with the figures above (minimax error)", "time = (compute^k + memory^k)^(1/k): a"
    " roofline softened because not every kernel sits at the same intensity")
L2_TRAFFIC_SAVING = Param(
    0.15, "fraction", "fitted (Dettmers 2023 argues a large L2 cuts DRAM traffic; MLC: the RTX 4090 decodes"
    " 6–10 % faster than the 3090 Ti at the same bandwidth)", "most DRAM traffic a large L2 cache saves")
L2_HALF_SIZE = Param(
    96, "MB", "fitted with L2_TRAFFIC_SAVING", "L2 size that saves half of L2_TRAFFIC_SAVING")
AMD_SOFTWARE_EFFICIENCY = Param(
    0.76, "× the CUDA-calibrated speed", "llama.cpp issue #20934 (2026): RX 7900 XTX, LLaMA 7B Q4_0 tg128 167–177"
    " tok/s with the Vulkan backend and 129–144 with ROCm, 0.85× and 0.68× what the model gives its bandwidth;"
    " 0.76 is their geometric mean", "AMD cards run the same work through less mature kernels than CUDA's; no"
    " training figure was found, so the decode one stands for every workload")
# LLM decode and prefill (planner/recommend/perf.py; fitted with tools/perf_residuals.py --fit on tests/data/perf/)
XIONGJIE = ("XiongjieDai/GPU-Benchmarks-on-LLM-Inference (llama.cpp llama-bench, Llama 3 8B/70B Q4_K_M and F16,"
            " 1–8 cards, May 2024; tests/data/perf/llama_cpp.csv, fit split)")
LLM_PERF_BENCH = ("mlc-ai/llm-perf-bench README (MLC LLM, ExLlamaV2, llama.cpp, vLLM; Llama 2 7B/13B/70B, 1–8 cards"
                  " over PCIe, 2023; tests/data/perf/engines.csv)")
PREMAI = "premAI-io/benchmarks docs/llama2.md (A100 80GB, Llama 2 7B, Jan 2024; tests/data/perf/engines.csv)"
# Engines, their version eras and their per-token, per-sequence and per-all-reduce figures are data:
# planner/recommend/engines.toml (planner/recommend/engines.py), each era with its source.
NCCL_TUNING = "NVIDIA/nccl src/graph/tuning.cc (commit 5067397c, 2026-06), the tuner's default constants"
LINKS = Table(
    {"nvlink": (0.6, 1.0), "pcie-p2p": (1.0, 1.0), "pcie-host": (2.3, 0.5)},
    "µs per all-reduce step, share of the link's bandwidth",
    f"{NCCL_TUNING}: the hardware latency of a ring step with the LL protocol (the one small messages take) is"
    " 0.6 µs over NVLink and 1.0 µs over PCIe; voipmonitor/rtx6kpro hardware/pcie-bandwidth.md measures NCCL's"
    " small-message all-reduce on 8 PCIe cards with peer-to-peer (RTX PRO 6000, nccl-tests) at ~24 µs, the tuner's"
    " 6.6 + 14 × 1.0 = 20.6 µs plus ~3.4 µs of launch. Without peer-to-peer NCCL's SHM transport copies each chunk"
    " into and out of host memory (two PCIe crossings, half the bandwidth): NVIDIA/nccl#1530 measures an 8-byte"
    " all-reduce on 8 × RTX 4090 at 42.1 µs, so a step through host memory costs (42.1 − 3.4 − 6.6) / 14 = 2.3 µs",
    "what each step of a tensor-parallel all-reduce costs on each kind of link; NCCL's ring of n cards takes"
    " 2 (n − 1) steps after its base latency, a one-shot all-reduce through peer memory 2 steps")
KERNEL_CLOCK = Table(
    {"volta": (1.53,), "turing": (1.68,), "ampere-hbm": (1.41,), "ampere": (1.74,), "ada": (2.50,),
     "hopper": (1.90,), "blackwell": (2.50,), "rdna3": (2.45,), "rdna4": (2.97,), "cdna2": (1.70,), "cdna3": (2.10,)},
    "GHz", "boost clocks of each family's cards (NVIDIA and AMD spec pages, TechPowerUp GPU database): V100 1.53;"
    " RTX 20 1.62-1.77; A100 (GA100, HBM) 1.41; GA102-GA106 cards 1.56-1.86 (RTX 3090 1.695, A6000 1.80); Ada"
    " 2.04-2.61 (RTX 4090 2.52, L40S 2.52); H100 1.755 (PCIe) to 1.98 (SXM); Blackwell GeForce/RTX PRO 2.41-2.62;"
    " RX 7900 2.40-2.50, RX 9070 XT 2.97; MI210/MI250X 1.70, MI300X 2.10", "the clock a family's small, latency-bound"
    " kernels run at: a decode step's fixed GPU work per layer (launches and tails of the norm, rotary, attention,"
    " activation and routing kernels, each a few µs however small the layer) takes cycles, so it costs"
    " REFERENCE_KERNEL_CLOCK / clock times an engine era's per-layer figure (docs/performance-model.md)")
REFERENCE_KERNEL_CLOCK = Param(
    2.5, "GHz", "an RTX 4090's 2.52 GHz boost, rounded: the clock the engine eras' per-layer costs are stated at",
    "engines.toml per_layer_us and moe_layer_us are per layer at this clock")
NCCL_BASE_LATENCY = Param(
    6.6, "µs", f"{NCCL_TUNING}: baseLatencies, ring with the LL protocol", "what one NCCL all-reduce costs before its"
    " steps (a one-shot custom all-reduce through peer memory does not pay it)")
NVLINK_BANDWIDTH = Table(
    {"volta": (150.0,), "ampere": (300.0,), "hopper": (450.0,), "blackwell": (900.0,), "cdna": (448.0,),
     "bridge": (56.25,)},
    "GB/s per direction", "NVIDIA data sheets: NVLink 2.0 on V100 SXM2 300 GB/s, NVLink 3 on A100 600 GB/s, NVLink 4 on"
    " H100 SXM 900 GB/s, NVLink 5 on B200 1.8 TB/s (both directions); AMD MI300X Infinity Fabric 896 GB/s peer"
    " aggregate; a GeForce/RTX A-series NVLink bridge 112.5 GB/s (RTX 3090, RTX A6000)", "all-reduce bytes of"
    " tensor parallel over NVLink (SXM/OAM baseboards; a bridge joins two PCIe cards)")
# Prefill efficiency per engine era (the share of the fp16 tensor rate prompt processing reaches): engines.toml.
DEFAULT_OUTPUT_TOKENS = Param(
    256, "tokens", "planner assumption: a chat answer of a few paragraphs (vLLM's benchmark_serving random dataset"
    " defaults to 128; ShareGPT answers average ~200-300)", "tokens each request generates when --output is not given"
    " (serving several users: prompts of arriving requests are prefilled as others finish)")
DEFAULT_PROMPT_TOKENS = Param(
    1024, "tokens", "planner assumption: a chat turn with some history (the XiongjieDai tables' pp 1024)",
    "prompt length for the time to first token when --prompt is not given")
# Training (planner/recommend/perf.py training_speed; fitted with tools/perf_residuals.py --fit)
LAMBDA_TRAINING = ("lambdal/deeplearning-benchmark pytorch/pytorch-train-throughput-fp16.csv (PyTorch NGC, fp16,"
                   " 1–8 cards; tests/data/perf/lambda_training.csv, fit split)")
#: Per sample: t = tensor / F + 1 / (η · B) + cuda_cores / F32 + fixed, with F dense fp16 tensor TFLOPS (fp32
#: accumulate), B memory bandwidth in GB/s (η = 1 on GDDR, the HBM figure on HBM), F32 non-tensor TFLOPS, fixed in
#: ms; at the largest batch the card holds, throughput × memory / (memory + batch_half).
TRAINING = Table(
    {"transformer": (0.080, 0.0050, 0.250, 7.0, 0.80), "cnn": (0.0336, 0.0042, 0.200, 0.10, 0.935)},
    "tensor, cuda_cores, fixed ms, batch_half GB, HBM η", f"fitted: {LAMBDA_TRAINING}: transformers on BERT base/large"
    " and Transformer-XL base/large, CNNs on ResNet-50 and SSD", "transformers are bound by memory traffic and"
    " tensor math, CNNs more by per-sample fixed work; cards with less memory run smaller batches, so the per-step"
    " costs (optimizer update, launches) weigh more (Lambda's batch sizes grow with memory)")
MULTI_GPU_SCALING = Table(
    {"pcie": (0.996,), "nvlink": (0.992,)},
    "throughput per doubling of cards", f"fitted: {LAMBDA_TRAINING}, n-card ÷ 1-card throughput on the same card"
    " (PCIe: RTX 3090/4090/A6000/6000 Ada, A100/H100 PCIe; NVLink: V100/A100/H100 SXM)", "data-parallel training of"
    " n cards = n × per-card × scaling^log2(n)")
REFERENCE_CHIP = "h100-sxm5-80gb"  # relative performance 1.00, as the Dettmers charts normalise
# Ranking and cost (planner/recommend/rank.py)
BASE_DESKTOP_PRICE = Param(
    1800, "USD", "planner assumption: CPU, board, 64 GB RAM, 1600 W PSU, case and SSD of a 4-GPU desktop",
    "Dettmers normalises performance per dollar by card price plus a share of a base desktop")
BASE_DESKTOP_GPUS = Param(
    4, "GPUs", "planner assumption", "the base desktop's price is shared over this many cards")
DEFAULT_MAX_GPUS = Param(
    4, "GPUs", "Dettmers: 2–4 GPUs per desktop", "counts considered without --gpus or --build")
MAX_BUILD_GPUS = Param(
    8, "GPUs", "the largest example builds (8-GPU frames)", "counts tried against a --build")
# Cloud vs buy (planner/recommend/tco.py)
DEFAULT_UTILIZATION = Param(
    0.15, "fraction of the day", "Dettmers (reference README): personal PhD desktops < 15 %, PhD clusters > 35 %,"
    " company clusters > 60 %", "usage when neither --hours-per-day nor --utilization is given")
DEFAULT_ELECTRICITY_PRICE = Param(
    0.16, "USD/kWh", "US EIA Electric Power Monthly: average US residential price ~16 ¢/kWh in 2023",
    "when --electricity is not given")
BASE_SYSTEM_POWER = Param(
    150, "W", "planner assumption: CPU, board, RAM, drives and fans while the GPUs work (Dettmers' example: 100 W"
    " CPU)", "wall draw of an option without a build")
