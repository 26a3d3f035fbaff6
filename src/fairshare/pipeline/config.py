"""Load and validate a pipeline config against ``workflow/schemas/config.schema.yaml``, then check its cross-references.

The schema is JSON Schema written in YAML. Each paper's block lives in its own schema file
(``workflow/schemas/<paper>.schema.yaml``) and is pulled in with ``$ref``; defaults in the schema are filled in.
After the schema, :func:`check_references` checks what a schema cannot: keys that name another config entry (a
partition, an experiment) or a dataset. Every failure raises :class:`ConfigError`: one line naming the key, the bad
value and what is allowed, prefixed with the config file the key came from when the caller says which files it merged.

``python -m fairshare.pipeline.config [snakemake arguments]`` checks the files a Snakemake command line would read
(``config/config.yaml`` and every ``--configfile``): ``./run pipeline`` calls it so that a YAML syntax error is
reported with its file and line, which Snakemake's own message does not give.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import functools
import os
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from fairshare.errors import UserError
from fairshare.pipeline import seed_plan

__all__ = [
    "SCHEMA_DIR",
    "DEFAULT_CONFIG",
    "KeyPath",
    "Source",
    "ConfigError",
    "load_schema",
    "check_references",
    "check_sizes",
    "NON_EMPTY",
    "check_blocks",
    "validate_config",
    "read_config_file",
    "config_sources",
    "load_config",
    "dataset_mirrors",
    "main",
]

SCHEMA_DIR = Path(__file__).resolve().parents[3] / "workflow" / "schemas"
DEFAULT_CONFIG = "config/config.yaml"

KeyPath = tuple[str | int, ...]
Source = tuple[str, Mapping[str, Any]]  # (where the values came from, the mapping read there)


class ConfigError(UserError, ValueError):
    """A config key or value that the schema or a cross-reference check does not allow; ``path`` names the key."""

    def __init__(self, message: str, path: Sequence[str | int] = ()) -> None:
        super().__init__(message)
        self.path: KeyPath = tuple(path)


def load_schema(path: str | Path | None = None) -> dict[str, Any]:
    """Load the top-level schema and inline every ``$ref`` to a sibling YAML file."""
    path = Path(path) if path is not None else SCHEMA_DIR / "config.schema.yaml"

    def resolve(node: Any, base: Path) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#"):
                target = base / ref
                return resolve(yaml.safe_load(target.read_text()), target.parent)
            return {k: resolve(v, base) for k, v in node.items()}
        if isinstance(node, list):
            return [resolve(v, base) for v in node]
        return node

    return resolve(yaml.safe_load(path.read_text()), path.parent)


def _is_integer(checker: Any, instance: Any) -> bool:
    """An ``int`` and nothing else. JSON Schema counts 4.0 as an integer, but a float reaches ``range()`` and array
    shapes as a ``TypeError`` long after validation (issue 27), so a float is refused even when it is whole."""
    return isinstance(instance, int) and not isinstance(instance, bool)


@functools.cache
def _validator() -> type:
    """Draft 7 validation extended so that ``properties`` fills in missing defaults (as snakemake does) and
    ``integer`` means an ``int`` (:func:`_is_integer`). jsonschema is imported here, not with the module: every job
    imports this module for :class:`ConfigError`, few validate."""
    import jsonschema

    validator_class = jsonschema.Draft7Validator
    validate_properties = validator_class.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for name, sub in properties.items():
                if "default" in sub and name not in instance:
                    instance[name] = copy.deepcopy(sub["default"])
        yield from validate_properties(validator, properties, instance, schema)

    type_checker = validator_class.TYPE_CHECKER.redefine("integer", _is_integer)
    return jsonschema.validators.extend(validator_class, {"properties": set_defaults}, type_checker=type_checker)


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _dotted(path: Sequence[str | int]) -> str:
    return ".".join(str(p) for p in path)


def _key_path(error: Any) -> KeyPath:
    """The config key a ``jsonschema.ValidationError`` is about: an unknown key's own path (so that the error names
    the file that set it), else the path of the value that failed."""
    path = tuple(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        if extra:
            return (*path, extra[0])
    return path


def _describe(error: Any) -> str:
    """One line for a ``jsonschema.ValidationError``."""
    error = next((e for e in error.context or () if e.validator == "type" and _float_for_integer(e)), error)
    key = _dotted(error.absolute_path) or "<top level>"
    v = error.validator
    if v == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        where = f"'{key}'" if error.absolute_path else "the top level"
        guesses = [g for k in extra for g in difflib.get_close_matches(str(k), allowed, n=1)]
        hint = f"did you mean {', '.join(repr(g) for g in guesses)}? " if guesses else ""
        return (
            f"unknown config key {', '.join(repr(k) for k in extra)} under {where}; {hint}"
            f"allowed keys: {', '.join(allowed)}"
        )
    if v == "required":
        return f"config key '{key}' is missing a required entry: {error.message}"
    if v == "enum":
        return f"config key '{key}': value {_short(error.instance)} is not allowed; allowed values: {', '.join(map(repr, error.validator_value))}"
    if v == "type" and _float_for_integer(error):
        whole = error.instance.is_integer()
        fix = f"write {int(error.instance)}, not {error.instance!r}" if whole else "write a whole number"
        return f"config key '{key}': value {error.instance!r} is a float where an integer belongs; {fix}"
    if v == "type":
        return (
            f"config key '{key}': value {_short(error.instance)} has the wrong type; expected {error.validator_value}"
        )
    if v in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        sign = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}[v]
        return f"config key '{key}': value {_short(error.instance)} is out of range; allowed: {sign} {error.validator_value}"
    if v in ("minItems", "maxItems", "minLength", "maxLength", "uniqueItems", "pattern"):
        return f"config key '{key}': value {_short(error.instance)} violates {v}={error.validator_value!r}"
    return f"config key '{key}': {error.message}"


def _float_for_integer(error: Any) -> bool:
    """A float given where the schema asks for an integer (alone or among other types)."""
    expected = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
    return isinstance(error.instance, float) and "integer" in expected


def _reference(path: KeyPath, value: Any, allowed: Sequence[str], what: str) -> ConfigError:
    names = ", ".join(allowed) if allowed else "(none configured)"
    return ConfigError(f"config key '{_dotted(path)}': {_short(value)} is not {what}; allowed names: {names}", path)


def _per_dataset_maps(cfg: Mapping[str, Any]) -> Iterator[tuple[KeyPath, Mapping[str, Any], list[str]]]:
    """(path, mapping, allowed keys) of every setting given per dataset."""
    from fairshare.data.datasets import CACHEABLE, DATASETS

    a, m = cfg["aequa"], cfg["mmfl"]
    with_default = [*CACHEABLE, "default"]
    yield ("data", "offline_fallback"), cfg["data"]["offline_fallback"], list(DATASETS)  # the registry's datasets
    yield ("mmfl", "models"), m["models"], list(CACHEABLE)
    yield ("mmfl", "weight_decay"), m["weight_decay"], with_default
    for key in ("models", "max_train_samples", "max_features", "p_min", "p_min_ablation"):
        yield ("aequa", key), a[key], with_default
    yield ("aequa", "train", "rounds"), a["train"]["rounds"], with_default
    yield ("aequa", "train", "weight_decay"), a["train"]["weight_decay"], with_default
    yield ("aequa", "cgsv", "gamma"), a["cgsv"]["gamma"], with_default
    for i, p in enumerate(a["partitions"]):
        overrides = p.get("classes_per_client_overrides", {})
        yield ("aequa", "partitions", i, "classes_per_client_overrides"), overrides, list(CACHEABLE)


def _reference_errors(cfg: Mapping[str, Any]) -> Iterator[ConfigError]:
    """Every key that names a config entry or a dataset that does not exist (after defaults are filled in)."""
    from fairshare.data.datasets import CACHEABLE

    a, m = cfg["aequa"], cfg["mmfl"]

    for path, entries in (
        (("partitions",), cfg["partitions"]),
        (("aequa", "partitions"), a["partitions"]),
        (("mmfl", "experiments"), m["experiments"]),
    ):
        names = [e["name"] for e in entries]
        for i, name in enumerate(names):
            if name in names[:i]:
                yield ConfigError(
                    f"config key '{_dotted((*path, i, 'name'))}': name {name!r} is used twice; names must be unique",
                    (*path, i, "name"),
                )

    for path, mapping, allowed in _per_dataset_maps(cfg):
        for key in mapping if isinstance(mapping, Mapping) else ():
            if key not in allowed:
                yield _reference((*path, key), key, allowed, "a dataset")

    # Aequa: partitions named by the tables, figures and extensions; datasets of the extensions and Table 9.
    parts = [p["name"] for p in a["partitions"]]
    for scheme, name in a["table_partitions"].items():
        of_scheme = [p["name"] for p in a["partitions"] if p["scheme"] == scheme]
        if of_scheme and name not in of_scheme:  # no partition of this scheme: its row group is simply absent
            yield _reference(
                ("aequa", "table_partitions", scheme), name, of_scheme, f"a {scheme} partition in aequa.partitions"
            )
    named = [
        (("aequa", "curve_partition"), a["curve_partition"]),
        (("aequa", "participation", "partition"), a["participation"]["partition"]),
    ]
    named += [
        (("aequa", "training_time", "partitions", fig), name) for fig, name in a["training_time"]["partitions"].items()
    ]
    for path, name in named:
        if name not in parts:
            yield _reference(path, name, parts, "a partition in aequa.partitions")
    for i, d in enumerate(a["table9_datasets"]):
        if d not in a["datasets"]:
            yield _reference(("aequa", "table9_datasets", i), d, a["datasets"], "one of aequa.datasets")
    for block in ("participation", "training_time"):
        for i, d in enumerate(a[block]["datasets"]):
            if d not in CACHEABLE:
                yield _reference(("aequa", block, "datasets", i), d, CACHEABLE, "a dataset")
    if a["scale"]["dataset"] not in (*CACHEABLE, "femnist"):
        yield _reference(("aequa", "scale", "dataset"), a["scale"]["dataset"], [*CACHEABLE, "femnist"], "a dataset")

    # Multi-model FL: experiments named by the tables and figures.
    experiments = [e["name"] for e in m["experiments"]]
    if experiments:  # none (a config without the block; a file cannot empty it, check_blocks): these keep defaults
        named = [
            (("mmfl", "per_task_experiment"), m["per_task_experiment"]),
            (("mmfl", "alpha_sweep_experiment"), m["alpha_sweep_experiment"]),
        ]
        named += [(("mmfl", "table2_experiments", i), name) for i, name in enumerate(m["table2_experiments"])]
        for path, name in named:
            if name not in experiments:
                yield _reference(path, name, experiments, "an experiment in mmfl.experiments")

    # Models: every dataset a job may train on (the configured one, or its offline stand-in) needs one.
    data = cfg["data"]

    def used(dataset: str) -> list[str]:
        fallback = data["offline_fallback"].get(dataset)
        return [dataset] if data["allow_download"] or fallback is None else [dataset, fallback]

    tasks = [(("mmfl", "experiments", i, "tasks"), t) for i, e in enumerate(m["experiments"]) for t in e["tasks"]]
    tasks += [(("auctions", "exp6", "tasks"), t) for t in cfg["auctions"]["exp6"]["tasks"]]
    for path, task in tasks:
        for d in used(task):
            if d not in m["models"]:
                yield ConfigError(
                    f"config key 'mmfl.models' has no model for {d!r}, used by '{_dotted(path)}'; add an entry {d}: <model>",
                    ("mmfl", "models"),
                )
    trained = [*a["datasets"], *a["participation"]["datasets"], *a["training_time"]["datasets"]]
    if "default" not in a["models"]:
        for d in dict.fromkeys(trained):
            if not any(u in a["models"] for u in used(d)):
                yield ConfigError(
                    f"config key 'aequa.models' has no model for {d!r} (nor a default); add an entry {d}: <model>",
                    ("aequa", "models"),
                )

    # Payoff flows: one budget per party.
    pf = cfg["payoff_flows"]
    for i, scenario in enumerate(pf["budget_scenarios"]):
        budgets = scenario["budgets"]
        if budgets is not None and len(budgets) != len(pf["label_ranges"]):
            yield ConfigError(
                f"config key 'payoff_flows.budget_scenarios.{i}.budgets': {len(budgets)} budgets for {len(pf['label_ranges'])} parties "
                "(payoff_flows.label_ranges); give one per party",
                ("payoff_flows", "budget_scenarios", i, "budgets"),
            )


def check_references(cfg: Mapping[str, Any]) -> None:
    """Raise :class:`ConfigError` for the first key naming an entry or dataset that does not exist."""
    for error in _reference_errors(cfg):
        raise error


def check_sizes(cfg: Mapping[str, Any]) -> None:
    """Raise :class:`ConfigError` naming the key of the first training run whose estimated memory, checkpoint disk or
    time (:mod:`fairshare.pipeline.resources`) exceeds the config's ``limits`` (by default this machine)."""
    from fairshare.pipeline.resources import check_limits

    found = check_limits(cfg)
    if found is not None:
        path, why = found
        value = functools.reduce(lambda node, part: node[part], path, cfg)
        raise ConfigError(f"{_dotted(path)}: {_short(value)}: {why} (estimate: fairshare.pipeline.resources)", path)


def _contains(source: Any, path: KeyPath) -> bool:
    for part in path:
        if isinstance(source, Mapping) and part in source:
            source = source[part]
        elif isinstance(source, list) and isinstance(part, int) and part < len(source):
            source = source[part]
        else:
            return False
    return True


def _origin(path: KeyPath, sources: Sequence[Source]) -> str | None:
    """The last source that sets ``path``, or the longest part of it (a default inside a block it sets)."""
    for depth in range(len(path), 0, -1):
        for label, data in reversed(sources):
            if _contains(data, path[:depth]):
                return label
    return None


#: Lists a config file may not empty: an empty one would silently drop the partition figures or the paper's runs.
NON_EMPTY: tuple[KeyPath, ...] = (("partitions",), ("mmfl", "experiments"))


def check_blocks(sources: Sequence[Source]) -> None:
    """Raise :class:`ConfigError` naming the file when one empties a list of :data:`NON_EMPTY`, or when a profile
    leaves out a block of the default config (``sources[0]``): a profile file (one setting another ``profile``) and
    the files layered on it set every block (mapping or list) the default config sets, since a block left out would
    silently take the default profile's values. A profile file that says ``extends_default: true`` (the default
    profile with a few blocks changed) keeps the default config's blocks on purpose."""
    for label, data in sources:
        for path in NON_EMPTY:
            if _contains(data, path) and functools.reduce(lambda node, part: node[part], path, data) == []:
                raise ConfigError(f"{label}: '{_dotted(path)}' is empty; give it at least one entry", path)
    if len(sources) < 2 or "profile" not in sources[0][1]:
        return
    default = sources[0][1]["profile"]
    setters = [k for k, (_, data) in enumerate(sources) if k and data.get("profile", default) != default]
    if not setters:
        return
    label, data = sources[setters[0]]
    if data.get("extends_default") is True:
        return
    for key, value in sources[0][1].items():
        if isinstance(value, (Mapping, list)) and not any(key in later for _, later in sources[setters[0] :]):
            raise ConfigError(
                f"{label}: profile {data['profile']!r} has no '{key}' block, so it would silently run the default "
                f"profile's; give it one (copy it from {sources[0][0]} to keep those values)",
                (key,),
            )


def validate_config(
    config: Mapping[str, Any], schema: Mapping[str, Any] | None = None, *, sources: Sequence[Source] = ()
) -> dict[str, Any]:
    """Return a copy of ``config`` with defaults filled in, or raise :class:`ConfigError` (one line).

    ``sources`` are the mappings ``config`` was merged from, in order; the error then names the one its key came from.
    """
    schema_given = schema
    schema = schema if schema is not None else load_schema()
    check_blocks(sources)
    filled = copy.deepcopy(dict(config))
    try:
        try:
            seed_plan.resolve_seeds(filled)  # a seed count `plan` reads workflow/seed_plan.yaml (issue 42)
        except UserError as exc:
            raise ConfigError(str(exc)) from None
        errors = list(_validator()(schema).iter_errors(filled))
        if errors:
            from jsonschema.exceptions import best_match

            best = best_match(errors)
            raise ConfigError(_describe(best), _key_path(best))
        check_references(filled)
        if schema_given is None:
            check_sizes(filled)
    except ConfigError as exc:
        origin = _origin(exc.path, sources)
        if origin is None:
            raise
        raise ConfigError(f"{origin}: {exc}", exc.path) from None
    return filled


def read_config_file(path: str | Path) -> dict[str, Any]:
    """One YAML config file as a mapping; a syntax error names the file and line."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f", line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{path}{where}: not valid YAML ({problem})") from None
    if data is None:
        raise ConfigError(f"{path}: the config file is empty; give it config keys, or leave it off the command line")
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config file must be a mapping of config keys, not {type(data).__name__}")
    return data


def _label(path: str | Path) -> str:
    """``path`` relative to the working folder when it lies inside it (as the user typed it), else as given."""
    relative = os.path.relpath(path)
    return str(path) if relative.startswith("..") else relative


def config_sources(
    files: Sequence[str | Path], cli_files: Sequence[str | Path] = (), cli_values: Mapping[str, Any] | None = None
) -> list[Source]:
    """What Snakemake merged into ``config``, in its order: the Snakefile's ``configfile``\\ s (``files`` not in
    ``cli_files``), then ``--configfile`` files, then ``--config`` values; for :func:`validate_config`'s ``sources``."""
    given = {Path(f).absolute() for f in cli_files}
    ordered = [f for f in files if Path(f).absolute() not in given] + list(cli_files)
    sources: list[Source] = [(_label(f), read_config_file(f)) for f in ordered]
    if cli_values:
        sources.append(("--config", cli_values))
    return sources


def load_config(*paths: str | Path, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Read YAML config files (later ones update earlier ones, as ``--configfile`` does) and validate them."""
    sources: list[Source] = [(_label(p), read_config_file(p)) for p in paths]
    if overrides:
        sources.append(("overrides", overrides))
    merged: dict[str, Any] = {}
    for _, data in sources:
        _deep_update(merged, data)
    return validate_config(merged, sources=sources)


def dataset_mirrors(data: Mapping[str, Any], name: str) -> list[str]:
    """The mirror folders of dataset ``name`` from a validated ``data`` block: its ``data.mirrors`` entry, then
    ``<data.mirror_dir>/<name>`` (always searched)."""
    return [*data["mirrors"].get(name, []), f"{data['mirror_dir']}/{name}"]


def _deep_update(base: dict[str, Any], new: Mapping[str, Any]) -> None:
    for k, v in new.items():
        if isinstance(v, Mapping) and isinstance(base.get(k), dict):
            _deep_update(base[k], v)
        else:
            base[k] = copy.deepcopy(v)


def _dry_run(argv: Sequence[str]) -> bool:
    """Whether a Snakemake command line asks for a dry run: ``--dry-run``, ``--dryrun``, or ``-n`` alone or among
    short flags (``-np``)."""
    return any(a in ("--dry-run", "--dryrun") or re.fullmatch(r"-[A-Za-z]*n[A-Za-z]*", a) for a in argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Check the config files of a Snakemake command line; print one line and return 2 when one is invalid. Then
    remove the dataset caches that fail their check (only report them on a dry run), so that their rules rebuild
    them (:mod:`fairshare.pipeline.preflight`)."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--configfile", "--configfiles", nargs="+", action="extend", default=[])
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_known_args(argv)[0]
    try:
        cfg = load_config(DEFAULT_CONFIG, *args.configfile)
    except ConfigError as exc:
        print(f"fairshare: invalid config: {exc}", file=sys.stderr)
        return 2
    from fairshare.pipeline.preflight import layouts, remove_failing_caches

    for line in remove_failing_caches(cfg["data"]["processed_dir"], _dry_run(argv), layouts(cfg)):
        print(f"fairshare: {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
