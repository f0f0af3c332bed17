"""Real workload models (`catalogs/llms.toml`, kind `llm`): the figures the GPU recommendation's
memory estimator and decode-speed model need (docs/performance-model.md).

An LLM carries its architecture (layers, hidden size, attention and KV heads, head size, context
length) so the KV cache and activations can be computed; a diffusion model its components and native
resolution; a vision model its architecture or a per-sample activation figure. Parameter counts are
in billions, as model cards quote them.
"""

from typing import Literal, NamedTuple, Self

from planner.models.base import Part
from planner.util.record import Field, model_validator
from planner.util.units import Memory

#: A dense LLM's parameter count derived from its architecture may differ from the published count by
#: biases, norms and rounding; more than this means a figure was mistyped.
ARCHITECTURE_TOLERANCE = 0.03


class Shape(NamedTuple):
    """Parameter counts of a decoder-only LLM by kind of tensor (per layer where noted)."""

    layers: int
    moe_layers: int  # layers whose MLP is routed experts
    q_o: int  # per layer: query and output projections (MLA: its compressed query too)
    k: int  # per layer: key projection (MLA: the latent's down- and key up-projection)
    v: int  # per layer: value projection (MLA: the value up-projection)
    dense_gate_up: int  # per dense layer
    dense_down: int
    expert_gate_up: int  # per expert
    expert_down: int
    experts: int  # routed experts per MoE layer
    experts_per_token: int
    shared: int  # shared experts per MoE layer
    router: int  # per MoE layer
    embedding: int  # the token embedding (the head has as many again unless tied)
    tied: bool
    hidden: int
    intermediate: int
    expert_width: int

    @property
    def attention(self) -> int:
        return self.q_o + self.k + self.v

    @property
    def expert(self) -> int:
        return self.expert_gate_up + self.expert_down

    @property
    def routed(self) -> int:
        """Every routed expert of every MoE layer."""
        return self.moe_layers * self.experts * self.expert

    @property
    def total(self) -> int:
        dense = (self.layers - self.moe_layers) * (self.dense_gate_up + self.dense_down)
        moe = self.routed + self.moe_layers * (self.shared * self.expert + self.router)
        return self.layers * self.attention + dense + moe + self.embedding * (1 if self.tied else 2)

    @property
    def active(self) -> int:
        unused = self.moe_layers * (self.experts - self.experts_per_token) * self.expert
        return self.total - unused - (0 if self.tied else self.embedding)


class WorkloadModel(Part):
    """A model a user wants to run or train: its size and the architecture figures memory depends on."""

    category: Literal["llm", "diffusion", "vision"] = Field(description="llm | diffusion | vision.")
    parameters: float = Field(
        gt=0, le=5_000, description="Parameters, billions (every parameter; for mixture-of-experts the total).")
    active_parameters: float | None = Field(
        default=None, gt=0, le=5_000,
        description="Parameters used per token, billions (mixture-of-experts models; default: all).")
    released: str | None = Field(default=None, description="Release date (YYYY-MM).")
    layers: int | None = Field(default=None, ge=1, le=512, description="Transformer layers (blocks).")
    hidden_size: int | None = Field(default=None, ge=16, le=65_536, description="Model (embedding) width.")
    attention_heads: int | None = Field(default=None, ge=1, le=1_024, description="Query heads per layer.")
    kv_heads: int | None = Field(
        default=None, ge=1, le=1_024,
        description="Key/value heads per layer (fewer than the query heads with grouped-query attention).")
    head_dim: int | None = Field(default=None, ge=8, le=1_024, description="Size of one attention head.")
    intermediate_size: int | None = Field(default=None, ge=16, le=262_144, description="MLP width.")
    vocab_size: int | None = Field(default=None, ge=2, le=1_000_000, description="Tokenizer vocabulary.")
    tied_embeddings: bool = Field(
        default=False, description="Input embedding and output head share one matrix.")
    experts: int | None = Field(default=None, ge=2, le=1_024, description="MLP experts (mixture-of-experts).")
    experts_per_token: int | None = Field(default=None, ge=1, le=64, description="Experts each token uses.")
    moe_intermediate_size: int | None = Field(
        default=None, ge=16, le=262_144,
        description="MLP width of one routed expert (default: intermediate_size, as in Mixtral).")
    shared_experts: int = Field(
        default=0, ge=0, le=64, description="Experts every token uses besides the routed ones (DeepSeek V3, Llama 4).")
    moe_layers: int | None = Field(
        default=None, ge=1, le=512,
        description="Layers whose MLP is a mixture of experts (default: all); the others use a dense MLP of"
                    " intermediate_size (DeepSeek V3: the first 3 of 61 are dense; Llama 4 Maverick: every other).")
    kv_lora_rank: int | None = Field(
        default=None, ge=16, le=65_536,
        description="Multi-head latent attention (DeepSeek V2/V3): the rank of the compressed K/V latent that"
                    " the KV cache keeps instead of per-head keys and values.")
    q_lora_rank: int | None = Field(default=None, ge=16, le=65_536, description="MLA: rank of the compressed query.")
    rope_head_dim: int | None = Field(
        default=None, ge=8, le=1_024,
        description="MLA: the decoupled rotary key per token (cached with the latent); head_dim is then the"
                    " non-rotary query/key head size, and the value head size.")
    sliding_window: int | None = Field(
        default=None, ge=16, le=10_000_000,
        description="Tokens a local (sliding-window) attention layer sees; None: every layer sees the whole context.")
    global_every: int | None = Field(
        default=None, ge=2, le=64,
        description="With sliding_window: every n-th layer attends globally, the others locally (Gemma 2: 2); "
                    "None: every layer is local.")
    context_length: int | None = Field(
        default=None, ge=16, le=100_000_000,
        description="Sequence length: the longest context an LLM supports; tokens per image for a vision transformer.")
    components: dict[str, float] = Field(
        default={}, description="Parameters of each component, billions (e.g. unet, text_encoders, vae).")
    resolution: int | None = Field(default=None, ge=16, le=16_384, description="Native image side, px.")
    activation_per_sample: Memory | None = Field(
        default=None, gt=0, le=200,
        description="Peak activation memory for one image/sample at the native resolution in 16-bit, GB "
                    "(diffusion inference; CNN training).")

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.active_parameters is not None and self.active_parameters > self.parameters:
            raise ValueError("active_parameters cannot exceed parameters")
        if self.category == "llm":
            missing = [name for name in ("layers", "hidden_size", "attention_heads", "kv_heads", "context_length")
                       if getattr(self, name) is None]
            if missing:
                raise ValueError(f"an llm needs {', '.join(missing)} (the KV cache and activations depend on them)")
            assert self.attention_heads is not None and self.kv_heads is not None
            if self.attention_heads % self.kv_heads:
                raise ValueError(
                    f"attention_heads {self.attention_heads} is not a multiple of kv_heads {self.kv_heads}")
        if (self.experts is None) != (self.experts_per_token is None):
            raise ValueError("experts and experts_per_token go together")
        if self.experts is not None and self.experts_per_token is not None and self.experts_per_token > self.experts:
            raise ValueError("experts_per_token cannot exceed experts")
        if self.experts is None and (self.moe_layers is not None or self.shared_experts
                                     or self.moe_intermediate_size is not None):
            raise ValueError("moe_layers, shared_experts and moe_intermediate_size need experts")
        if self.layers is not None and self.moe_layers is not None and self.moe_layers > self.layers:
            raise ValueError("moe_layers cannot exceed layers")
        if (self.kv_lora_rank is None) != (self.rope_head_dim is None):
            raise ValueError("multi-head latent attention needs both kv_lora_rank and rope_head_dim")
        if self.global_every is not None and self.sliding_window is None:
            raise ValueError("global_every needs sliding_window")
        if self.category == "diffusion" and (self.resolution is None or self.activation_per_sample is None):
            raise ValueError("a diffusion model needs resolution and activation_per_sample")
        if self.category == "vision" and self.activation_per_sample is None and self.layers is None:
            raise ValueError("a vision model needs activation_per_sample or its transformer architecture")
        if self.components:
            total = sum(self.components.values())
            if abs(total - self.parameters) > 0.02 * self.parameters:
                raise ValueError(f"components add up to {total:g} B parameters, not {self.parameters:g} B")
        derived = self.derived_parameters
        if derived is not None and abs(derived - self.parameters) > ARCHITECTURE_TOLERANCE * self.parameters:
            raise ValueError(f"the architecture gives {derived:.2f} B parameters, not {self.parameters:g} B "
                             "(check layers, hidden_size, heads, intermediate_size and vocab_size)")
        return self

    @property
    def head_size(self) -> int:
        """Size of one attention head (hidden ÷ heads unless the model says otherwise)."""
        if self.head_dim is not None:
            return self.head_dim
        assert self.hidden_size is not None and self.attention_heads is not None
        return self.hidden_size // self.attention_heads

    def local_layers(self) -> int:
        """Layers that keep only the sliding window in their KV cache."""
        if self.sliding_window is None or self.layers is None:
            return 0
        if self.global_every is None:
            return self.layers
        return self.layers - self.layers // self.global_every

    @property
    def mla(self) -> bool:
        """Multi-head latent attention: the KV cache keeps one compressed latent per token and layer."""
        return self.kv_lora_rank is not None

    def shape(self) -> Shape | None:
        """The parameters of each kind of tensor (decoder-only LLM), or None where the catalog lacks the figures."""
        if self.category != "llm" or self.intermediate_size is None or self.vocab_size is None:
            return None
        assert self.hidden_size is not None and self.layers is not None
        assert self.attention_heads is not None and self.kv_heads is not None
        h, d, heads = self.hidden_size, self.head_size, self.attention_heads
        if self.kv_lora_rank is not None and self.rope_head_dim is not None:
            rope, latent = self.rope_head_dim, self.kv_lora_rank
            query = (h * self.q_lora_rank + self.q_lora_rank * heads * (d + rope) if self.q_lora_rank
                     else h * heads * (d + rope))
            q_o, k, v = query + heads * d * h, h * (latent + rope) + latent * heads * d, latent * heads * d
        else:
            q_o, k, v = 2 * h * heads * d, h * self.kv_heads * d, h * self.kv_heads * d
        experts = self.experts or 0
        moe = (self.moe_layers if self.moe_layers is not None else self.layers) if experts else 0
        expert_width = self.moe_intermediate_size or self.intermediate_size
        return Shape(layers=self.layers, moe_layers=moe, q_o=q_o, k=k, v=v,
                     dense_gate_up=2 * h * self.intermediate_size, dense_down=self.intermediate_size * h,
                     expert_gate_up=2 * h * expert_width, expert_down=expert_width * h, experts=experts,
                     experts_per_token=self.experts_per_token or 0, shared=self.shared_experts,
                     router=h * experts, embedding=self.vocab_size * h, tied=self.tied_embeddings,
                     hidden=h, intermediate=self.intermediate_size, expert_width=expert_width)

    @property
    def derived_parameters(self) -> float | None:
        """Billions of parameters implied by a decoder-only LLM's architecture (attention + gated MLP, routed and
        shared experts and the router in its MoE layers, plus embeddings), or None where the catalog lacks the
        figures."""
        shape = self.shape()
        return None if shape is None else shape.total / 1e9

    @property
    def derived_active_parameters(self) -> float | None:
        """Billions of parameters one token uses: attention, dense MLPs, shared experts, experts_per_token of the
        routed ones, and the output head (the input embedding is a lookup)."""
        shape = self.shape()
        return None if shape is None else shape.active / 1e9
