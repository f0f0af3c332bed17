"""Real workload models (`catalogs/models.toml`, kind `model`): the figures the GPU recommendation's
memory estimator and decode-speed model need (SPEC §6).

An LLM carries its architecture (layers, hidden size, attention and KV heads, head size, context
length) so the KV cache and activations can be computed; a diffusion model its components and native
resolution; a vision model its architecture or a per-sample activation figure. Parameter counts are
in billions, as model cards quote them.
"""

from typing import Literal, Self

from planner.models.base import Part
from planner.record import Field, model_validator
from planner.units import Memory

#: A dense LLM's parameter count derived from its architecture may differ from the published count by
#: biases, norms and rounding; more than this means a figure was mistyped.
ARCHITECTURE_TOLERANCE = 0.03


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
    sliding_window: int | None = Field(
        default=None, ge=16, le=10_000_000,
        description="Tokens a local (sliding-window) attention layer sees; None: every layer sees the whole context.")
    global_every: int | None = Field(
        default=None, ge=2, le=64,
        description="With sliding_window: every n-th layer attends globally, the others locally (Gemma 2: 2); "
                    "None: every layer is local.")
    context_length: int | None = Field(
        default=None, ge=16, le=10_000_000,
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
    def derived_parameters(self) -> float | None:
        """Billions of parameters implied by a decoder-only LLM's architecture (attention + gated MLP
        (+ experts) per layer, plus embeddings), or None where the catalog lacks the figures."""
        if self.category != "llm" or self.intermediate_size is None or self.vocab_size is None:
            return None
        assert self.hidden_size is not None and self.layers is not None
        assert self.attention_heads is not None and self.kv_heads is not None
        h, d = self.hidden_size, self.head_size
        attention = 2 * h * self.attention_heads * d + 2 * h * self.kv_heads * d
        experts = self.experts or 1
        mlp = 3 * h * self.intermediate_size * experts + (h * experts if experts > 1 else 0)
        embeddings = self.vocab_size * h * (1 if self.tied_embeddings else 2)
        return (self.layers * (attention + mlp) + embeddings) / 1e9
