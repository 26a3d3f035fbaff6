"""Load and validate a pipeline config against ``workflow/schemas/config.schema.yaml``.

The schema is JSON Schema written in YAML. Each paper's block lives in its own schema file
(``workflow/schemas/<paper>.schema.yaml``) and is pulled in with ``$ref``; defaults in the schema are filled in.
Validation failures raise :class:`ConfigError` with one line naming the key, the bad value and what is allowed.
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Mapping

import jsonschema
import yaml

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "workflow" / "schemas"


class ConfigError(ValueError):
    """A config key or value that the schema does not allow."""


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


def _with_defaults(validator_class: type) -> type:
    """Extend a jsonschema validator so that ``properties`` fills in missing defaults (as snakemake does)."""
    validate_properties = validator_class.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for name, sub in properties.items():
                if "default" in sub and name not in instance:
                    instance[name] = copy.deepcopy(sub["default"])
        yield from validate_properties(validator, properties, instance, schema)

    return jsonschema.validators.extend(validator_class, {"properties": set_defaults})


_Validator = _with_defaults(jsonschema.Draft7Validator)


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe(error: jsonschema.ValidationError) -> str:
    key = ".".join(str(p) for p in error.absolute_path) or "<top level>"
    v = error.validator
    if v == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        where = f"'{key}'" if error.absolute_path else "the top level"
        return f"unknown config key {', '.join(repr(k) for k in extra)} under {where}; allowed keys: {', '.join(allowed)}"
    if v == "required":
        return f"config key '{key}' is missing a required entry: {error.message}"
    if v == "enum":
        return f"config key '{key}': value {_short(error.instance)} is not allowed; allowed values: {', '.join(map(repr, error.validator_value))}"
    if v == "type":
        return f"config key '{key}': value {_short(error.instance)} has the wrong type; expected {error.validator_value}"
    if v in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        sign = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}[v]
        return f"config key '{key}': value {_short(error.instance)} is out of range; allowed: {sign} {error.validator_value}"
    if v in ("minItems", "maxItems", "minLength", "maxLength", "uniqueItems", "pattern"):
        return f"config key '{key}': value {_short(error.instance)} violates {v}={error.validator_value!r}"
    return f"config key '{key}': {error.message}"


def validate_config(config: Mapping[str, Any], schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Return a copy of ``config`` with defaults filled in, or raise :class:`ConfigError` (one line)."""
    schema = schema if schema is not None else load_schema()
    filled = copy.deepcopy(dict(config))
    validator = _Validator(schema)
    errors = sorted(validator.iter_errors(filled), key=lambda e: (len(e.absolute_path), str(e.absolute_path)))
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        # Prefer the deepest error on the same path: it names the exact offending key.
        raise ConfigError(_describe(best))
    return filled


def load_config(*paths: str | Path, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Read YAML config files (later ones update earlier ones, as ``--configfile`` does) and validate them."""
    merged: dict[str, Any] = {}
    for p in paths:
        data = yaml.safe_load(Path(p).read_text()) or {}
        _deep_update(merged, data)
    if overrides:
        _deep_update(merged, dict(overrides))
    return validate_config(merged)


def _deep_update(base: dict[str, Any], new: Mapping[str, Any]) -> None:
    for k, v in new.items():
        if isinstance(v, Mapping) and isinstance(base.get(k), dict):
            _deep_update(base[k], v)
        else:
            base[k] = copy.deepcopy(v)
