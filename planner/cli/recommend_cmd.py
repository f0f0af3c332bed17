"""`planner recommend` (which GPUs, how many) and `planner tco` (cloud vs buy). The parsers are added by
planner/cli/main.py; the work is imported only when a command runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.util.errors import ExitCode, InputError
from planner.util.fmt import printable

if TYPE_CHECKING:
    from planner.catalog import Catalog
    from planner.recommend.rank import Candidate, Recommendation
    from planner.recommend.tco import BuildCost, Tco

#: Engines --engine takes (planner/recommend/engines.toml names; kept here so --help needs no import of the data).
ENGINE_NAMES = ["llama.cpp", "ollama", "vllm", "sglang", "tensorrt-llm", "exllama", "mlc"]
WORKLOADS = ["llm-inference", "llm-finetune", "llm-train", "image-generation", "vision-train", "general"]
#: Weight formats and the old precision names (planner/recommend/formats.py NAMES).
PRECISIONS = ["q4_0", "q4_k_s", "q4_k_m", "q5_0", "q5_k_m", "q6_k", "q8_0", "iq4_xs", "iq3_xxs", "iq2_xxs", "f16",
              "bf16", "fp8", "nf4", "awq", "gptq", "nvfp4", "mxfp4", "f32", "fp16", "int8", "int4", "fp4", "fp32"]


def quantity(kind: str, flag: str) -> Any:
    """An argparse type: a number, or a string with a unit ("$4,000", "40 GB"; planner/recommend/inputs.py)."""

    def parse(text: str) -> float:
        from planner.recommend.inputs import amount

        try:
            return amount(text, kind)
        except ValueError as error:  # argparse names the option: "argument --budget: …"
            raise argparse.ArgumentTypeError(str(error)) from None

    return parse


def billions(text: str) -> float:
    """--params: "70", "70B", "7.5 b" (billions of parameters)."""
    cleaned = text.strip().lower().removesuffix("b").strip()
    try:
        value = float(cleaned)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected billions of parameters such as 70 or 7.5B, got {text[:40]!r}") from None
    if not 0 < value <= 5_000:
        raise argparse.ArgumentTypeError(f"expected a size between 0 and 5,000 billion, got {text[:40]!r}")
    return value


def gibibytes(text: str) -> float:
    """--memory: GiB ("40", "40 GiB"), or decimal GB converted ("42.9 GB" → 40 GiB); the wizard's limits too."""
    from planner.recommend.inputs import memory_gib

    try:
        return memory_gib(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def run_recommend(args: argparse.Namespace) -> int:
    from planner.cli.common import catalog_from, write_json
    from planner.recommend import params
    from planner.recommend.memory import MemoryRequest
    from planner.recommend.rank import Request, recommend
    from planner.recommend.tco import cloud_vs_buy, hours_from, option_cost

    if args.gpus is not None:
        from planner.recommend.inputs import gpu_count

        try:
            gpu_count(args.gpus)
        except ValueError as error:
            raise InputError(f"--gpus {error}") from None
    if args.method is not None and args.workload not in ("llm-finetune", "llm-train"):
        raise InputError("--method applies to --workload llm-finetune (lora, qlora or full)")
    finetune_flags = [flag for flag, value in (("--framework", args.framework != "hf"), ("--lora-rank", args.lora_rank),
                                               ("--offload", args.offload is not None)) if value]
    if finetune_flags and args.workload != "llm-finetune":
        raise InputError(f"{', '.join(finetune_flags)} applies to --workload llm-finetune")
    if args.kv_cache != "f16" and args.workload not in ("llm-inference", "general"):
        raise InputError("--kv-cache applies to --workload llm-inference")
    inference_flags = [flag for flag, value in (("--engine", args.engine != "llama.cpp"), ("--users", args.users != 1),
                                                ("--prompt", args.prompt is not None),
                                                ("--engine-version", args.engine_version is not None),
                                                ("--output", args.output_tokens is not None),
                                                ("--gpu-memory-utilization", args.memory_fraction is not None),
                                                ("--min-tok-s", args.min_tok_s is not None))
                       if value]
    if inference_flags and args.workload != "llm-inference":
        raise InputError(f"{', '.join(inference_flags)} applies to --workload llm-inference")
    if args.sort == "machine-price" and not args.complete:
        raise InputError("--sort machine-price ranks completed machines: add --complete")
    if not 1 <= args.users <= 4096:
        raise InputError(f"--users must be between 1 and 4096, got {args.users}")
    if args.prompt is not None and not 1 <= args.prompt <= 10_000_000:
        raise InputError(f"--prompt must be between 1 and 10,000,000 tokens, got {args.prompt}")
    if args.min_tok_s is not None and not 0 < args.min_tok_s <= 1_000_000:
        raise InputError(f"--min-tok-s must be a speed above 0 tokens/s, got {args.min_tok_s:g}")
    if args.output_tokens is not None and not 1 <= args.output_tokens <= 10_000_000:
        raise InputError(f"--output must be between 1 and 10,000,000 tokens, got {args.output_tokens}")
    if args.memory_fraction is not None and not 0.05 <= args.memory_fraction <= 1.0:
        raise InputError(f"--gpu-memory-utilization must be between 0.05 and 1, got {args.memory_fraction:g}")
    if args.engine_version is not None:
        from planner.recommend import engines

        engines.get(args.engine).era(args.engine_version)  # one sentence when it is not a year or YYYY-MM
    if args.batch is not None and not 1 <= args.batch <= 65_536:
        raise InputError(f"--batch must be between 1 and 65,536, got {args.batch}")
    if args.context is not None and not 1 <= args.context <= 10_000_000:
        raise InputError(f"--context must be between 1 and 10,000,000 tokens, got {args.context}")
    if args.top < 1:
        raise InputError(f"--top must be at least 1, got {args.top}")
    if args.lora_rank is not None and not 1 <= args.lora_rank <= 4096:
        raise InputError(f"--lora-rank must be between 1 and 4096, got {args.lora_rank}")
    if args.plot is not None and args.plot.suffix.lower() != ".svg":
        raise InputError("--plot writes an SVG file; give a name ending in .svg", file=str(args.plot))
    hours = hours_from(args.hours_per_day, args.utilization)
    precision_given, args.precision = args.precision is not None, args.precision or "fp16"
    catalog = catalog_from(args)
    model = _model(catalog, args.model) if args.model else None
    from planner.cli.recommend_complete import build_fit, run_extended
    from planner.recommend.complete import precision_hint

    fit, partial = build_fit(args, catalog)
    memory = MemoryRequest(workload=args.workload, model=model, parameters=args.params, memory=args.memory,
                           precision=args.precision, context=args.context,
                           batch=args.batch or (args.users if args.users > 1 else None), method=args.method,
                           checkpointing=args.checkpointing, kv_cache=args.kv_cache, framework=args.framework,
                           lora_rank=args.lora_rank, offload=args.offload, display=args.display,
                           memory_fraction=args.memory_fraction)
    request = Request(memory, budget=args.budget, gpus=args.gpus, fit=fit, vendor=args.vendor, engine=args.engine,
                      region=args.region,
                      users=args.users, prompt_tokens=args.prompt, engine_version=args.engine_version,
                      output_tokens=args.output_tokens, min_tokens_per_s=args.min_tok_s)
    rec = recommend(request, catalog)
    most = params.MAX_BUILD_GPUS if fit is not None else params.DEFAULT_MAX_GPUS
    counts = [args.gpus] if args.gpus else list(range(1, int(most.value) + 1))
    found = precision_hint(request, catalog, rec) if not precision_given else None
    hint = found.sentence(args.precision) if found is not None else None
    if args.complete or args.add:
        return run_extended(args, catalog, request, rec, fit, partial, counts, hint)
    chosen = _pick(rec, args.sort, args.pick, need_board=args.into is not None)
    tco = cost = None
    if chosen is not None:
        cost = option_cost(chosen, catalog, fit)
        electricity = args.electricity if args.electricity is not None else params.DEFAULT_ELECTRICITY_PRICE.value
        tco = cloud_vs_buy(cost.price_usd, cost.power_w, hours, electricity, args.cloud_price)
    if args.plot is not None:
        _write_plot(args.plot, rec, args.force)
    into = _into(args, chosen, catalog) if args.into is not None else None
    if args.format == "json":
        from planner.cli.render_recommend import to_json

        data = to_json(rec, args.precision, counts, tco, chosen, into and into[0])
        data["precision_hint"] = hint
        write_json(data)
        return ExitCode.OK
    from planner.cli.render_recommend import render
    from planner.recommend.plot import text_chart

    chart = "" if args.no_chart else text_chart(rec.by_value)
    text = render(rec, args.precision, counts, args.top, tco, cost, chosen, chart)
    if hint:  # under "No option fits"
        text = text.replace("\n\nLeft out:", f"\n{hint}\n\nLeft out:", 1)
    sys.stdout.write(printable(text, newlines=True))
    if into is not None:
        sys.stdout.write("\n" + printable(into[1], newlines=True))
    return ExitCode.OK


def _model(catalog: Catalog, model_id: str) -> Any:
    from planner.models.workloads import WorkloadModel
    from planner.util.errors import UnknownPartError

    try:
        return catalog.typed("llm", model_id, WorkloadModel)
    except UnknownPartError as unknown:
        hint = f"; did you mean {' or '.join(repr(s) for s in unknown.suggestions)}?" if unknown.suggestions else ""
        raise InputError(f"--model: no model {model_id!r} in the catalog{hint} (planner catalog list llm)") from None


def _pick(rec: Recommendation, sort: str, pick: int, *, need_board: bool) -> Candidate | None:
    ranking = rec.by_value if sort == "value" else rec.by_speed
    if pick < 1:
        raise InputError(f"--pick counts from 1, got {pick}")
    if not ranking:
        return None
    if pick > len(ranking):
        raise InputError(f"--pick {pick}: only {len(ranking)} options fit")
    chosen = ranking[pick - 1]
    if need_board and chosen.board is None:
        raise InputError(f"option {pick} ({chosen.name}) has no board in the catalog to put into a build;"
                         " choose another with --pick")
    return chosen


def _write_plot(path: Path, rec: Recommendation, force: bool) -> None:
    from planner.recommend.plot import svg_chart
    from planner.util.fileio import atomic_write

    title = f"Performance per $1,000 vs memory: {rec.model.name if rec.model else rec.workload} ({rec.basis})"
    atomic_write(path, svg_chart(rec.by_value, title), force=force)
    print(f"wrote {printable(str(path))}", file=sys.stderr)


def _into(args: argparse.Namespace, chosen: Candidate | None, catalog: Catalog) -> tuple[dict[str, Any], str]:
    """Write the chosen cards into the build file, check it, and say what happened."""
    from planner.api import check_file
    from planner.checks.engine.context import Settings
    from planner.cli.render_text import render_report
    from planner.recommend.into import put_gpus
    from planner.report import to_json

    if chosen is None or chosen.board is None:
        raise InputError("no option fits, so there is nothing to put into the build", file=str(args.into))
    note = f"{chosen.count} × {chosen.name}: chosen by planner recommend ({args.workload})"
    written = put_gpus(args.into, chosen.board, chosen.count, workload=args.workload, base=args.build, note=note)
    report = check_file(args.into, catalog, Settings(region=args.region))
    what = (f"updated {args.into}" + (f", replacing {', '.join(written.replaced)}" if written.replaced else "")
            if written.created_from is None else f"wrote {args.into} from {written.created_from}")
    text = f"{what} with {chosen.count} × {chosen.board}; planner check says {report.verdict.upper()}:\n"
    data = {"file": str(args.into), "board": chosen.board, "count": chosen.count,
            "created_from": written.created_from, "replaced": written.replaced, "report": to_json(report)}
    return data, text + render_report(report)


def run_tco(args: argparse.Namespace) -> int:
    from planner.cli.common import catalog_from, write_json
    from planner.cli.render_recommend import tco_lines
    from planner.recommend import params
    from planner.recommend.tco import build_cost, cloud_vs_buy, hours_from

    hours = hours_from(args.hours_per_day, args.utilization)
    electricity = args.electricity if args.electricity is not None else params.DEFAULT_ELECTRICITY_PRICE.value
    cost: BuildCost | None = None
    if args.build is not None:
        if args.hardware_cost is not None or args.power is not None:
            raise InputError("give --build or --hardware-cost and --power, not both")
        cost = build_cost(args.build, catalog_from(args))
        hardware, power = cost.price_usd, cost.power_w
    elif args.hardware_cost is None or args.power is None:
        raise InputError("give --hardware-cost USD and --power W (the wall draw), or --build FILE")
    else:
        hardware, power = args.hardware_cost, args.power
    tco: Tco = cloud_vs_buy(hardware, power, hours, electricity, args.cloud_price)
    if args.format == "json":
        data = tco._asdict()
        if cost is not None:
            data["build"] = str(args.build)
            data["price_missing"] = cost.price_missing
            data["power_from"] = cost.how
        write_json(data)
    else:
        sys.stdout.write("".join(printable(line) + "\n" for line in tco_lines(tco, cost)))
    return ExitCode.OK
