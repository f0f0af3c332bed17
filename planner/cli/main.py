"""`planner` command line. `main(argv) -> int` so tests call it in-process; stdout is data, stderr
diagnostics; exit codes from planner.util.errors.ExitCode."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from planner import __version__
from planner.cli.common import add_market_option
from planner.kinds import ALIASES
from planner.util.errors import ExitCode, PlannerError

REGIONS = ["us", "eu", "uk", "jp", "cn", "au"]
#: Plural and short names accepted for catalog kinds (`planner catalog list gpus`): the kinds' declarations.
KIND_ALIASES = ALIASES


class Parser(argparse.ArgumentParser):
    """argparse's parser whose error line is one printable line: it echoes what the user typed ("unrecognized
    arguments: …", an invalid value), and a newline or control character in that must neither forge a line
    nor act on the terminal (the stream's escaping, planner/cli/terminal.py, keeps newlines)."""

    def error(self, message: str) -> NoReturn:
        from planner.util.fmt import printable

        super().error(printable(message))


def _examples(*lines: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def _common() -> argparse.ArgumentParser:
    common = Parser(add_help=False)
    common.add_argument("--catalog", metavar="DIR", type=Path, action="append", default=[],
                        help="extra catalog directory (repeatable; later ones override earlier ones by id)")
    return common


def _prices(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--prices", metavar="FILE", type=Path, action="append", default=[],
                        help="your prices by part id, over the catalog's (repeatable; after your prices.toml in the "
                             "config directory): [prices] nvidia-rtx-3090-fe = { price = 800, date = \"2026-11\" }")


Subparsers = Any  # argparse's _SubParsersAction (private, so not named in signatures)
RAW = argparse.RawDescriptionHelpFormatter


def _add_check(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    check = sub.add_parser(
        "check", parents=[common], formatter_class=RAW,
        help="check build files: fit, power, outlets (exit 0 pass, 1 fail, 2 bad input)",
        description="Check one or more build files and report errors, warnings and totals.\n"
                    "Exit 0: every build passes (warnings allowed); 1: at least one fails; "
                    "2: a file could not be read or is invalid.",
        epilog=_examples("planner check build.toml",
                         "planner check - < build.toml              # the build from stdin",
                         "planner check examples/builds/*.toml --format json",
                         "planner check build.toml --strict        # warnings fail too",
                         "planner check build.toml --region eu     # default circuit when none is given",
                         "planner check build.toml --diagram       # with the slot diagram"))
    check.add_argument("files", nargs="+", type=Path, metavar="FILE",
                       help="build file(s) (.toml); - reads one from stdin")
    check.add_argument("--format", choices=["text", "json"], default="text", help="output format (default text)")
    check.add_argument("--strict", action="store_true", help="warnings make the build fail (exit 1)")
    check.add_argument("--region", choices=REGIONS, default=None,
                       help="region whose standard outlet is assumed when a build names no circuit (default us)")
    check.add_argument("--psu-target", type=float, default=None, metavar="FRACTION",
                       help="warn when sustained PSU load exceeds this fraction of its rating (default 0.8)")
    check.add_argument("--diagram", action="store_true",
                       help="also show each build's slot diagram (which positions each card covers, risers, lanes)")
    _prices(check)


def _add_catalog(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    from planner.kinds import KIND_FILES

    kinds = [*KIND_FILES, *KIND_ALIASES]
    catalog = sub.add_parser(
        "catalog", help="list, show, search and validate the part catalogs", formatter_class=RAW,
        epilog=_examples("planner catalog list gpu", "planner catalog list psu --search 1600",
                         "planner catalog show nvidia-rtx-3090-fe", "planner catalog search rtx 4090",
                         "planner catalog validate my-catalogs/"))
    csub = catalog.add_subparsers(dest="catalog_command", metavar="ACTION")
    clist = csub.add_parser("list", parents=[common], help="list parts (of one kind)", formatter_class=RAW,
                            epilog=_examples("planner catalog list", "planner catalog list gpus --search 4090"))
    clist.add_argument("kind", nargs="?", choices=kinds, metavar="KIND",
                       help=f"part kind: {', '.join(KIND_FILES)} (plurals work too)")
    clist.add_argument("--search", metavar="TEXT", help="only parts whose id/name/maker contain every word")
    clist.add_argument("--format", choices=["text", "json"], default="text",
                       help="text (tab-separated when piped) or json (default text)")
    cshow = csub.add_parser("show", parents=[common], help="show one part with every field and its source",
                            epilog=_examples("planner catalog show corsair-ax1600i",
                                             "planner catalog show nvidia-rtx-3090-fe --format json"),
                            formatter_class=RAW)
    cshow.add_argument("id", help="part id")
    cshow.add_argument("--format", choices=["text", "json"], default="text",
                       help="text or json (a GPU board merged with its chip; default text)")
    csearch = csub.add_parser("search", parents=[common], help="search every kind by id, name and maker",
                              epilog=_examples("planner catalog search rtx 3090 turbo"), formatter_class=RAW)
    csearch.add_argument("text", nargs="+", help="words to look for")
    csearch.add_argument("--format", choices=["text", "json"], default="text",
                         help="text or json (default text)")
    cvalidate = csub.add_parser(
        "validate", parents=[common],
        help="validate catalog files: the files read per kind, files not read, every entry (exit 1 on a problem)",
        epilog=_examples("planner catalog validate            # the built-in, --catalog and user catalogs",
                         "planner catalog validate ~/my-parts  # one directory (on top of the built-in parts)",
                         "planner catalog validate --stats     # how the curated parts are priced, by kind and market"),
        formatter_class=RAW)
    cvalidate.add_argument("dir", nargs="?", type=Path, help="a catalog directory to validate alone")
    cvalidate.add_argument("--stats", action="store_true",
                           help="also report how the curated parts are priced, per kind and per market (new, used):"
                                " dated, cited, estimated, the oldest price date; parts still sold whose new price"
                                " is older than 2025-01, and parts with no price in any market")


def _add_schema(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    from planner.kinds import KIND_FILES

    schema = sub.add_parser(
        "schema", help="print the JSON Schema of the build file (or of a catalog kind)", formatter_class=RAW,
        epilog=_examples("planner schema > build.schema.json", "planner schema gpu"))
    schema.add_argument("kind", nargs="?", choices=[*KIND_FILES, *KIND_ALIASES], metavar="KIND",
                        help=f"a catalog kind instead of the build: {', '.join(KIND_FILES)} (plurals work too)")


def _add_export(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    export = sub.add_parser(
        "export", parents=[common], formatter_class=RAW,
        help="export a build's parts list (md, bbcode, csv, json, text), its report as one HTML page (html) or "
             "power-limit script (nvidia-smi, systemd)",
        epilog=_examples("planner export build.toml --format md", "planner export build.toml --format bbcode -o -",
                         "planner export build.toml --format html -o build.html",
                         "planner export build.toml --format csv -o parts.csv",
                         "planner export build.toml --format csv -o parts.csv --force   # replace parts.csv",
                         "planner export build.toml --format nvidia-smi -o set-power-limits.sh",
                         "planner export build.toml --format systemd -o gpu-power-limits.service"))
    export.add_argument("file", type=Path, metavar="FILE", help="build file")
    export.add_argument("--format", choices=["md", "bbcode", "csv", "json", "text", "html", "nvidia-smi", "systemd"],
                        default="md",
                        help="parts list for a forum (md, bbcode, text: the verdict on top when the build fails, "
                             "the estimated power below) or a spreadsheet (csv, json), the whole report as one "
                             "self-contained HTML page to share (html: slot diagram, power chain, slowdown "
                             "curves; no script, nothing loaded), or the power limits as a shell script written "
                             "executable (nvidia-smi) or a systemd unit that applies them at boot (systemd); "
                             "default md")
    export.add_argument("-o", "--output", type=Path, metavar="OUT",
                        help="write here (atomically) instead of stdout (`-o -`: stdout)")
    export.add_argument("--force", action="store_true",
                        help="overwrite OUT if it exists; export power limits even when the build fails its check")
    export.add_argument("--region", choices=REGIONS, default=None, help=argparse.SUPPRESS)
    _prices(export)


def _add_tui(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    tui = sub.add_parser(
        "tui", parents=[common], formatter_class=RAW,
        help="interactive build session (parts, live findings, power, fixes, save)",
        description="Open a build (or start a new one) in the interactive planner. Keys are shown at the "
                    "bottom; ctrl+p lists every action.",
        epilog=_examples("planner tui                 # start a new build", "planner tui build.toml"))
    tui.add_argument("file", nargs="?", type=Path, metavar="FILE",
                     help="build file to open (created on save), or a lab file: its machines and verdicts, read-only")
    _prices(tui)


def _add_optimize(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    optimize = sub.add_parser(
        "optimize", parents=[common], formatter_class=RAW,
        help="find the highest GPU power limits that clear the power, outlet and thermal errors",
        description="Find the highest power limit per GPU (card minimum to default power, 5 W steps) that clears "
                    "every power, outlet and thermal error a power limit can clear, maximising the estimated "
                    "throughput, and write the build with those limits (comments and order kept).\n"
                    "Exit 0: done; 1: the build still fails with those limits (errors no power limit clears, slot and "
                    "case errors too, named on stderr); 2: bad input.",
        epilog=_examples("planner optimize build.toml                  # the new build on stdout",
                         "planner optimize build.toml -o build-285w.toml",
                         "planner optimize build.toml -o build.toml --force   # in place",
                         "planner optimize build.toml --strict         # clear the warnings too",
                         "planner optimize build.toml --format json"))
    optimize.add_argument("file", type=Path, metavar="FILE", help="build file")
    optimize.add_argument("-o", "--output", type=Path, metavar="OUT",
                          help="write here (atomically) instead of stdout (`-o -`: stdout)")
    optimize.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    optimize.add_argument("--strict", action="store_true",
                          help="clear warnings too (PSU above its target load, circuit above 90 %%, GPUs above "
                               "their temperature target)")
    optimize.add_argument("--region", choices=REGIONS, default=None,
                          help="region whose standard outlet is assumed when a build names no circuit (default us)")
    optimize.add_argument("--format", choices=["text", "json"], default="text",
                          help="text: the new build on stdout (or in OUT); json: the limits found, what they cost "
                               "and clear, and the new build as build_toml (default text)")
    optimize.add_argument("--psu-target", type=float, default=None, metavar="FRACTION",
                          help="PSU load fraction above which psu.headroom warns (default 0.8; with --strict)")
    _prices(optimize)


def _add_recommend(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    from planner.cli.recommend_cmd import ENGINE_NAMES, PRECISIONS, WORKLOADS, billions, gibibytes, quantity

    rec = sub.add_parser(
        "recommend", parents=[common], formatter_class=RAW,
        help="which GPUs (and how many) for a workload: memory need, performance per dollar, cloud vs buy",
        description="Estimate the memory a workload needs, rank the GPU options (a card × a count) that fit it, "
                    "the budget and (with --build) the build's slots and power, by performance per dollar and by "
                    "raw performance, and say why each other option is left out.",
        epilog=_examples("planner recommend --workload llm-inference --model llama-3-70b --precision int4 "
                         "--budget 4000",
                         "planner recommend --workload llm-inference --model llama-3-70b --precision awq --engine vllm "
                         "--gpus 4 --users 8",
                         "planner recommend --workload llm-finetune --model llama-3.1-8b --method qlora --budget 1500",
                         "planner recommend --workload image-generation --model sdxl-base-1.0 --plot sdxl.svg",
                         "planner recommend --workload llm-train --model llama-3.2-1b --build build.toml "
                         "--into build.toml",
                         "planner recommend --workload vision-train --memory 20 --cloud-price 1.10 --format json",
                         "planner catalog list llm                 # the models --model knows"))
    rec.add_argument("--workload", required=True, choices=WORKLOADS, help="what the GPUs will run")
    size = rec.add_mutually_exclusive_group()
    size.add_argument("--model", metavar="ID", help="a model from catalogs/llms.toml (planner catalog list llm)")
    size.add_argument("--params", type=billions, metavar="BILLIONS", help="model size in billions of parameters")
    size.add_argument("--memory", type=gibibytes, metavar="GIB",
                      help="the memory the workload needs in all, GiB, if you know it (split over the cards)")
    rec.add_argument("--precision", choices=PRECISIONS, default=None, metavar="FORMAT",
                     help="weights' format: GGUF q4_0 q4_k_m q5_k_m q6_k q8_0, f16/bf16, fp8, nf4, awq, gptq, nvfp4;"
                          " the old names fp16 int8 int4 fp4 fp32 are aliases (int4 = q4_0, int8 = q8_0)"
                          " (default fp16; QLoRA's base model is NF4 whatever this says)")
    rec.add_argument("--kv-cache", choices=["f16", "q8_0", "q4_0", "fp8"], default="f16",
                     help="KV cache type for llm-inference (default f16; llama.cpp -ctk/-ctv q8_0, vLLM fp8)")
    rec.add_argument("--engine", choices=ENGINE_NAMES, default="llama.cpp", metavar="ENGINE",
                     help="inference engine for llm-inference: llama.cpp, ollama, vllm, sglang, tensorrt-llm, exllama,"
                          " mlc — its decode speed, how it uses several cards (llama.cpp, ollama and exllama split the"
                          " layers; vllm, sglang, tensorrt-llm and mlc run tensor parallel) and its memory rule"
                          " (default llama.cpp)")
    rec.add_argument("--engine-version", metavar="YEAR",
                     help="the engine's version era as a year or YYYY-MM (2023, 2024, 2025-06; default the newest:"
                          " planner/recommend/engines.toml)")
    rec.add_argument("--gpu-memory-utilization", type=float, metavar="FRACTION", dest="memory_fraction",
                     help="vLLM's --gpu-memory-utilization (SGLang's --mem-fraction-static): the share of each card"
                          " the engine takes (default 0.90 for vLLM)")
    rec.add_argument("--users", type=int, default=1, metavar="N",
                     help="concurrent users (sequences) served at once for llm-inference: each one's tokens/s and"
                          " all of them together; their KV caches count in the memory need (default 1)")
    rec.add_argument("--prompt", type=int, metavar="TOKENS",
                     help="prompt length for the time to first token (default 1024)")
    rec.add_argument("--min-tok-s", type=float, metavar="TOK_S", dest="min_tok_s",
                     help="each user's decode speed an option must reach (tokens/s per user; with --users, options"
                          " that cannot serve them all that fast are left out, and each says how many users it"
                          " serves at that speed)")
    rec.add_argument("--output", type=int, metavar="TOKENS", dest="output_tokens",
                     help="tokens each request generates, for serving several users (--users): arriving prompts are"
                          " prefilled as others finish (default 256)")
    rec.add_argument("--framework", choices=["hf", "unsloth", "axolotl", "llama-factory"], default="hf",
                     help="fine-tuning framework for llm-finetune LoRA/QLoRA: its activation, logits and optimizer"
                          " memory (default hf: Transformers + PEFT + FlashAttention-2)")
    rec.add_argument("--lora-rank", type=int, metavar="R", help="LoRA rank (default 16)")
    rec.add_argument("--offload", action=argparse.BooleanOptionalAction, default=None,
                     help="keep checkpointed activations in host memory while fine-tuning (default: on for"
                          " unsloth, off otherwise)")
    rec.add_argument("--display", action="store_true",
                     help="a monitor is plugged into a card: ~0.8 GiB of it goes to the desktop")
    rec.add_argument("--method", choices=["lora", "qlora", "full"], default=None,
                     help="fine-tuning method for llm-finetune (default lora)")
    rec.add_argument("--context", type=int, metavar="TOKENS", help="context / sequence length (default 8192 for "
                     "inference, 2048 for training, at most the model's)")
    rec.add_argument("--batch", type=int, metavar="N", help="sequences or images per GPU (default 1; vision 64)")
    rec.add_argument("--checkpointing", action=argparse.BooleanOptionalAction, default=None,
                     help="activation checkpointing while training (default: on for fine-tuning, off otherwise)")
    rec.add_argument("--budget", type=quantity("price", "--budget"), metavar="USD", help="most to spend on the GPUs")
    rec.add_argument("--vendor", choices=["nvidia", "amd", "any"], default="nvidia",
                     help="whose cards to consider (default nvidia: most deep-learning software targets CUDA)")
    rec.add_argument("--gpus", type=int, metavar="N",
                     help="exactly N cards (default: 1–4, or with --build as many as the build takes)")
    rec.add_argument("--build", type=Path, metavar="FILE",
                     help="a build file whose slots, case and power limit how many of which cards fit")
    rec.add_argument("--region", choices=REGIONS, default=None,
                     help="region whose standard outlet is assumed when the build names no circuit (default us)")
    usage = rec.add_mutually_exclusive_group()
    usage.add_argument("--hours-per-day", type=float, metavar="H", help="hours of use a day (cloud vs buy)")
    usage.add_argument("--utilization", type=float, metavar="FRACTION",
                       help="share of the day in use (default 0.15, Dettmers' personal desktop)")
    rec.add_argument("--electricity", type=float, metavar="USD_PER_KWH", help="electricity price (default 0.16)")
    rec.add_argument("--cloud-price", type=float, metavar="USD_PER_HOUR",
                     help="what renting the same GPUs costs per hour (for the break-even)")
    rec.add_argument("--sort", choices=["value", "speed", "machine-price"], default="value",
                     help="which ranking --pick, --into and cloud vs buy use (default value: performance per dollar;"
                          " machine-price, with --complete: the completed machines, cheapest first)")
    rec.add_argument("--pick", type=int, default=1, metavar="N", help="the N-th option of that ranking (default 1)")
    rec.add_argument("--into", type=Path, metavar="FILE",
                     help="put the picked GPUs into this build file (created from --build or a starter build if "
                          "missing; comments kept) and check it")
    rec.add_argument("--complete", action="store_true",
                     help="complete each option into a machine with planner solve (board, case, CPU, PSUs; with "
                          "--build, around its parts) and rank only those that pass, by the whole machine's price")
    rec.add_argument("--add", action="store_true",
                     help="with --build: also consider adding cards to the build's own (kept, owned)")
    rec.add_argument("--plot", type=Path, metavar="FILE.svg", help="write a chart of performance per dollar vs memory")
    rec.add_argument("--force", action="store_true",
                     help="overwrite the --plot file (with --complete: the --into file) if it exists")
    rec.add_argument("--top", type=int, default=10, metavar="N", help="options shown per ranking (default 10)")
    rec.add_argument("--no-chart", action="store_true", help="leave out the text chart")
    rec.add_argument("--format", choices=["text", "json"], default="text",
                     help="json lists every option considered, with the reason for each one left out")
    _prices(rec)


def _add_tco(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    tco = sub.add_parser(
        "tco", parents=[common], formatter_class=RAW,
        help="cloud vs buy: electricity per year and the break-even of buying",
        description="Compare buying hardware with renting it: yearly energy and electricity cost, and after how "
                    "many days of use buying costs less than the cloud price.",
        epilog=_examples("planner tco --hardware-cost 2200 --power 450 --utilization 0.15 --electricity 0.12 "
                         "--cloud-price 2.14",
                         "planner tco --build build.toml --hours-per-day 8 --cloud-price 3.20 --format json"))
    tco.add_argument("--hardware-cost", type=float, metavar="USD", help="price of the hardware")
    tco.add_argument("--power", type=float, metavar="W", help="wall draw while it works")
    tco.add_argument("--build", type=Path, metavar="FILE", help="take price and wall draw from a build file instead")
    usage = tco.add_mutually_exclusive_group()
    usage.add_argument("--hours-per-day", type=float, metavar="H", help="hours of use a day")
    usage.add_argument("--utilization", type=float, metavar="FRACTION",
                       help="share of the day in use (default 0.15, Dettmers' personal desktop)")
    tco.add_argument("--electricity", type=float, metavar="USD_PER_KWH", help="electricity price (default 0.16)")
    tco.add_argument("--cloud-price", type=float, metavar="USD_PER_HOUR", help="what renting costs per hour")
    tco.add_argument("--format", choices=["text", "json"], default="text", help="text or json (default text)")
    _prices(tco)


def _add_place(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    place = sub.add_parser(
        "place", parents=[common], formatter_class=RAW,
        help="place a build's GPUs in slots and on risers: slot diagram, lanes, PCIe tree",
        description="Place every GPU the build file does not place itself (README: Placement): no overlapping coolers, "
                    "nothing past the case's last expansion slot, lane-sharing rules applied; the most lanes "
                    "first (x16 before x8), then the most free space below open-air cards. Prints the slot "
                    "diagram, each GPU's link, the PCIe tree and the `slot = …` lines that pin the placement.\n"
                    "Exit 0: every GPU has a mount; 1: some do not (the reason is printed); 2: bad input.",
        epilog=_examples("planner place build.toml",
                         "planner place build.toml --format json"))
    place.add_argument("file", type=Path, metavar="FILE", help="build file")
    place.add_argument("--format", choices=["text", "json"], default="text", help="output format (default text)")
    place.add_argument("--region", choices=REGIONS, default=None, help=argparse.SUPPRESS)


def _add_solve(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    from planner.cli.recommend_cmd import quantity

    solve = sub.add_parser(
        "solve", parents=[common], formatter_class=RAW,
        help="complete a partial build (GPUs given) into the cheapest machine that passes every check",
        description="Fill in what a partial build leaves out (motherboard, case, CPU, PSUs, circuits, riser "
                    "cables) so that `planner check` of the result finds no error: completions that pass come "
                    "before those that only warn (--accept-warnings: every completion without an error ranks by "
                    "the objective alone), then the cheapest, then the fewest warnings; estimated catalog figures "
                    "are judged as if sourced, so no part is chosen because its data is uncertain. Branch and bound "
                    "over the priced parts of the catalogs (a price file, --prices, prices others), proved optimal "
                    "when the search completes. Parts the file gives are kept; parts marked owned = true cost "
                    "nothing.\n"
                    "Exit 0: solved; 1: no completion passes (the reason is printed); 2: bad input.",
        epilog=_examples("planner solve partial.toml",
                         "planner solve partial.toml -o build.toml          # write the completed build",
                         "planner solve partial.toml --format json",
                         "planner solve partial.toml --allow-power-limits   # lower power limits where that helps",
                         "planner solve partial.toml --accept-warnings      # cheapest without an error",
                         "planner solve partial.toml --objective fastest --budget 3000",
                         "planner solve partial.toml --no-builtin --catalog my-parts/"))
    solve.add_argument("file", type=Path, metavar="FILE", help="partial build file (GPUs given)")
    solve.add_argument("--objective", choices=["cheapest", "perf-per-dollar", "fastest"], default="cheapest",
                       help="cheapest (default), perf-per-dollar (estimated throughput per dollar) or fastest "
                            "(the most throughput, within --budget)")
    solve.add_argument("--budget", type=quantity("price", "--budget"), metavar="USD",
                       help="most to spend on the parts bought (those added and those given but not owned)")
    solve.add_argument("--allow-power-limits", action="store_true",
                       help="lower GPU power limits where that clears power, outlet or thermal errors (the "
                            "estimated cost is shown)")
    solve.add_argument("--accept-warnings", action="store_true",
                       help="rank every completion without an error by the objective alone (default: completions "
                            "that pass come before those that warn, then the objective)")
    solve.add_argument("--no-builtin", action="store_true",
                       help="choose only from the --catalog directories (for tests and proofs on small catalogs)")
    solve.add_argument("--region", choices=REGIONS, default=None,
                       help="region whose standard outlet the circuits get when the build names none (default us)")
    solve.add_argument("--format", choices=["text", "json"], default="text", help="output format (default text)")
    solve.add_argument("-o", "--output", type=Path, metavar="OUT",
                       help="write the completed build here (your comments and order kept; atomic); `-o -`: the "
                            "build on stdout and the report on stderr")
    solve.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    _prices(solve)


def _add_init(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    init = sub.add_parser(
        "init", parents=[common], formatter_class=RAW,
        help="write a commented starter build to edit (asks nothing)",
        description="Write a starter build (a WRX80 workstation with 2-slot blower RTX 3090s, a 1600 W PSU, one "
                    "wall circuit), every line commented, and say how it checks.",
        epilog=_examples("planner init build.toml", "planner init build.toml --gpus 4 --outlet nema-6-20",
                         "planner init - | less                # on stdout"))
    init.add_argument("file", nargs="?", type=Path, metavar="FILE", help="where to write it (default stdout; - stdout)")
    init.add_argument("--gpus", type=int, default=2, metavar="N", help="number of GPUs, 1–4 (default 2)")
    init.add_argument("--outlet", default="nema-5-15", metavar="ID",
                      help="the wall outlet's catalog id (default nema-5-15; planner catalog list outlet)")
    init.add_argument("--force", action="store_true", help="overwrite FILE if it exists")


def _add_diff(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    diff = sub.add_parser(
        "diff", parents=[common], formatter_class=RAW,
        help="what changed between two builds: parts, limits, totals, verdicts, findings",
        description="Check two builds and show what changed from the first to the second: parts added and "
                    "removed, power limits, totals, the verdict, and the findings that appeared or cleared.\n"
                    "Exit 0: shown; 2: a file could not be read or is invalid.",
        epilog=_examples("planner diff build.toml build-285w.toml",
                         "planner optimize build.toml | planner diff build.toml -",
                         "planner diff old.toml new.toml --format json"))
    diff.add_argument("old", type=Path, metavar="A", help="the first build (- for stdin)")
    diff.add_argument("new", type=Path, metavar="B", help="the second build (- for stdin)")
    diff.add_argument("--format", choices=["text", "json"], default="text", help="output format (default text)")
    diff.add_argument("--region", choices=REGIONS, default=None,
                      help="region whose standard outlet is assumed when a build names no circuit (default us)")
    _prices(diff)


def _add_lab(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    lab = sub.add_parser(
        "lab", parents=[common], formatter_class=RAW,
        help="check a lab: machines on shared circuits, PDU banks and phases, UPS, cooling, network",
        description="Check a lab file: each machine's own report, then every circuit, PDU bank and line within "
                    "its limit, three-phase balance, the UPS's load and runtime, heat against cooling, the network "
                    "under multi-node training and noise where people sit; PSUs without a plug are assigned by "
                    "the planner.\nExit 0: the lab passes (warnings allowed); 1: it fails; 2: bad input.",
        epilog=_examples("planner lab examples/labs/office-four-dual-4090.toml",
                         "planner lab lab.toml --format json",
                         "planner lab lab.toml --format html -o lab.html",
                         "planner lab lab.toml --utilization 0.6 --electricity 0.12 --cloud-price 14.40 --market used"))
    lab.add_argument("file", type=Path, metavar="LAB", help="lab file (.toml)")
    lab.add_argument("--format", choices=["text", "json", "html"], default="text",
                     help="text, json, or html: the lab's report as one self-contained page to share (rack and "
                          "phase tables, the power tree from each feed to each PSU, heat, network, money; no script, "
                          "nothing loaded) (default text)")
    lab.add_argument("-o", "--output", type=Path, metavar="OUT",
                     help="write here (atomically) instead of stdout (`-o -`: stdout)")
    lab.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    lab.add_argument("--strict", action="store_true", help="warnings make the lab fail (exit 1)")
    usage = lab.add_mutually_exclusive_group()
    usage.add_argument("--hours-per-day", type=float, metavar="H", help="hours a day the lab works (electricity, "
                       "cooling, cloud vs buy)")
    usage.add_argument("--utilization", type=float, metavar="FRACTION",
                       help="share of the day it works (default 0.15, as planner tco; Dettmers: PhD clusters > 0.35, "
                            "company clusters > 0.60)")
    lab.add_argument("--electricity", type=float, metavar="USD_PER_KWH", help="electricity price (default 0.16)")
    lab.add_argument("--cloud-price", type=float, metavar="USD_PER_HOUR",
                     help="what renting the whole lab's GPUs costs per hour (for the break-even of buying)")
    _prices(lab)


def _add_completion(sub: Subparsers, common: argparse.ArgumentParser) -> None:
    completion = sub.add_parser(
        "completion", formatter_class=RAW,
        help="print a shell completion script (bash, zsh, fish), generated from these parsers",
        epilog=_examples("planner completion bash > ~/.local/share/bash-completion/completions/planner",
                         "planner completion zsh > ~/.zfunc/_planner",
                         "planner completion fish > ~/.config/fish/completions/planner.fish"))
    completion.add_argument("shell", choices=["bash", "zsh", "fish"], help="the shell: bash, zsh or fish")


#: Each command: the function that adds its parser, and "module:function" that runs it (imported only
#: when that command runs, so `planner schema` never pays for what `planner check` needs).
COMMANDS: dict[str, tuple[Callable[..., None], str]] = {
    "check": (_add_check, "planner.cli.check_cmd:run_check"),
    "place": (_add_place, "planner.cli.place_cmd:run_place"),
    "catalog": (_add_catalog, "planner.cli.catalog_cmd:run_catalog"),
    "schema": (_add_schema, "planner.cli.misc_cmd:run_schema"),
    "export": (_add_export, "planner.cli.misc_cmd:run_export"),
    "optimize": (_add_optimize, "planner.cli.optimize_cmd:run_optimize"),
    "solve": (_add_solve, "planner.cli.solve_cmd:run_solve"),
    "recommend": (_add_recommend, "planner.cli.recommend_cmd:run_recommend"),
    "tco": (_add_tco, "planner.cli.recommend_cmd:run_tco"),
    "init": (_add_init, "planner.cli.init_cmd:run_init"),
    "diff": (_add_diff, "planner.cli.diff_cmd:run_diff"),
    "lab": (_add_lab, "planner.cli.lab_cmd:run_lab"),
    "completion": (_add_completion, "planner.cli.completion_cmd:run_completion"),
    # the TUI is a face of its own (package tui/): named here, imported only when `planner tui` runs
    "tui": (_add_tui, "tui.cli:run"),
}


#: The commands whose prices follow `--market` (added to each by planner/cli/common.py: add_market_option).
MARKET_COMMANDS = ("check", "solve", "recommend", "export", "tco", "lab")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `only`, just that command's subparser (argparse needs only the one that runs,
    and building the others costs a cold `planner check` time it should not pay)."""
    parser = Parser(
        prog="planner",
        description="Plan multi-GPU deep-learning workstations: will it fit, power up, stay on the breaker "
                    "and stay cool — and what to change when it will not.",
        formatter_class=RAW,
        epilog=_examples("planner check examples/builds/pass-dual-3090-wrx80.toml",
                         "planner check builds/*.toml --format json",
                         "planner catalog list gpu --search 3090",
                         "planner export build.toml --format md -o parts.md"),
    )
    parser.add_argument("--version", action="version", version=f"planner {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    common = _common()
    for name, (add, _) in COMMANDS.items():
        if only is None or name == only:
            add(sub, common)
            if name in MARKET_COMMANDS:
                add_market_option(sub.choices[name])
    return parser


def main(argv: Sequence[str] | None = None, *, loaded: Callable[[], None] | None = None) -> int:
    """Run one command; `loaded` is called once its code is imported, before it runs. Everything it prints
    goes through the terminal channel's escaping (planner/cli/terminal.py), argparse's messages included;
    the TUI draws its own screen."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["tui"]:
        return _main(argv, loaded)
    from planner.cli.terminal import escaped

    with escaped():
        return _main(argv, loaded)


def _main(argv: list[str], loaded: Callable[[], None] | None) -> int:
    if not argv:  # bare `planner`: a short usage on stderr, not the whole help
        print(f"usage: planner COMMAND [options]\ncommands: {', '.join(COMMANDS)}\n"
              "`planner --help` describes them; `planner COMMAND --help` one of them", file=sys.stderr)
        return ExitCode.BAD_INPUT
    if argv[0] not in COMMANDS and not argv[0].startswith("-"):
        return _unknown_command(argv[0])
    parser = build_parser(argv[0] if argv[0] in COMMANDS else None)
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:
            _unknown_options(parser, args, extra)
    except SystemExit as exit_:  # argparse: --help (0) or a usage error (2)
        return int(exit_.code or 0)
    if args.command is None:
        parser.print_usage(sys.stderr)
        return ExitCode.BAD_INPUT
    if args.command == "catalog" and args.catalog_command is None:
        with contextlib.suppress(SystemExit):
            parser.parse_args(["catalog", "--help"])
        return ExitCode.BAD_INPUT
    try:
        module, function = COMMANDS[args.command][1].split(":")
        run: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module), function)
        if loaded is not None:
            loaded()
        return run(args)
    except PlannerError as error:
        from planner.util.fmt import printable

        print(f"planner: {printable(str(error))}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except KeyboardInterrupt:
        print("planner: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `planner … | head`
        return ExitCode.OK


def _unknown_command(name: str) -> int:
    import difflib

    close = difflib.get_close_matches(name, list(COMMANDS), n=1, cutoff=0.6)
    hint = f"; did you mean `planner {close[0]}`?" if close else f"; the commands are {', '.join(COMMANDS)}"
    from planner.util.fmt import printable

    print(f"planner: unknown command {printable(name[:40])!r}{hint}", file=sys.stderr)
    return ExitCode.BAD_INPUT


def subparser_of(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub)parser of the command `args` ran (`planner catalog list` → the `list` parser)."""
    current = parser
    for dest in ("command", "catalog_command"):
        actions = [a for a in current._actions if isinstance(a, argparse._SubParsersAction)]
        name = getattr(args, dest, None)
        if not actions or name is None or name not in actions[0].choices:
            break
        current = actions[0].choices[name]
    return current


def _unknown_options(parser: argparse.ArgumentParser, args: argparse.Namespace, extra: list[str]) -> None:
    """An unknown option or argument: the command's own usage, and the closest option it has."""
    import difflib

    command = subparser_of(parser, args)
    options = [o for a in command._actions for o in a.option_strings]
    # `--json` for `--format json`: an option's value written as an option
    values = {str(choice): f"{a.option_strings[-1]} {choice}" for a in command._actions
              if a.option_strings and a.choices for choice in a.choices}
    hints = []
    for word in extra:
        close = []
        if word.startswith("-"):
            close = difflib.get_close_matches(word.split("=")[0], options, n=1, cutoff=0.6) or [
                values[v] for v in difflib.get_close_matches(word.lstrip("-"), list(values), n=1, cutoff=0.7)]
        hints.append(f"{word[:40]} (did you mean {close[0]}?)" if close else word[:40])
    command.error(f"unrecognized arguments: {' '.join(hints)}")
