"""Which model a run uses: `default`, a local path (GGUF file, HF folder) or a name a server
knows; its identity for the cache (file sha256, or name@revision) and its FIM family.

The family comes from the model's own metadata where it says it (GGUF `general.name`,
`general.basename` and `tokenizer.ggml.pre`; HF `config.json` `_name_or_path`/`model_type`), and
from `--family` otherwise. Family names are the template families of the editor profiles
(replay.editors.templates): the same words Tabby's registry and Continue's template choice use.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import msgspec

from replay.assets import sha256_file
from replay.editors.templates import family_for_model
from replay.errors import UsageError
from replay.paths import cache_dir

DEFAULT_GGUF = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"


class ModelRef(msgspec.Struct, frozen=True, omit_defaults=True):
    """A resolved model: what to load or ask for, and how it is identified and templated."""

    name: str  # shown in results (the run's model_name)
    model_id: str  # cache identity: "sha256:<hex>" for a file, "name@revision" otherwise
    editor_model: str  # the model as the editor profiles take it (`model_ref` says which)
    family: str | None = None
    path: str | None = None
    sha256: str | None = None


class ModelError(UsageError):
    """The model cannot be used (missing file, unknown family)."""


def family_from_name(name: str) -> str | None:
    """The template family of a model name (replay.editors.templates.family_for_model)."""
    family = family_for_model(name)
    return family.name if family else None


_GGUF_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_GGUF_STRING, _GGUF_ARRAY = 8, 9


def gguf_metadata(path: Path) -> dict[str, str]:
    """The GGUF header's scalar and string values, as text (arrays skipped).

    Read straight from the header (format: ggml-org/ggml docs/gguf.md: magic, version, tensor
    count, key/value count, then typed key/values) because gguf.GGUFReader parses every array
    and tensor first: 17 s for the demo model against 0.1 s here.
    """
    import struct

    with path.open("rb") as fh:
        data = fh.read(1 << 20)
        pos = 0

        def take(n: int) -> bytes:
            nonlocal data, pos
            while pos + n > len(data):
                more = fh.read(max(1 << 20, n))
                if not more:
                    raise ModelError(f"{path}: truncated GGUF header")
                data = data[pos:] + more
                pos = 0
            out = data[pos : pos + n]
            pos += n
            return out

        def string() -> str:
            (n,) = struct.unpack("<Q", take(8))
            return take(n).decode("utf-8", "replace")

        def skip(vtype: int) -> None:
            if vtype == _GGUF_STRING:
                string()
            elif vtype == _GGUF_ARRAY:
                etype, count = struct.unpack("<IQ", take(12))
                if etype in _GGUF_SCALARS:
                    take(struct.calcsize(_GGUF_SCALARS[etype]) * count)
                else:
                    for _ in range(count):
                        skip(etype)
            else:
                take(struct.calcsize(_GGUF_SCALARS[vtype]))

        if take(4) != b"GGUF":
            raise ModelError(f"{path}: not a GGUF file")
        _version, _tensors, n_kv = struct.unpack("<IQQ", take(20))
        out: dict[str, str] = {}
        for _ in range(n_kv):
            key = string()
            (vtype,) = struct.unpack("<I", take(4))
            if vtype == _GGUF_STRING:
                out[key] = string()
            elif vtype in _GGUF_SCALARS:
                (value,) = struct.unpack(_GGUF_SCALARS[vtype], take(struct.calcsize(_GGUF_SCALARS[vtype])))
                out[key] = str(value).lower() if vtype == 7 else str(value)
            else:
                skip(vtype)
        return out


def family_from_gguf(meta: dict[str, str]) -> str | None:
    """From the GGUF's own words: its name, base name, pre-tokenizer, then architecture
    (`tokenizer.ggml.pre` is "deepseek-coder" / "starcoder" for those vocabularies; the
    StarCoder2 architecture is "starcoder2")."""
    for key in ("general.name", "general.basename", "tokenizer.ggml.pre", "general.architecture"):
        if meta.get(key) and (family := family_from_name(meta[key])):
            return family
    return None


def family_from_hf(folder: Path) -> str | None:
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    for key in ("_name_or_path", "name_or_path"):
        if isinstance(config.get(key), str) and (family := family_from_name(config[key])):
            return family
    return family_from_name(folder.name)


def folder_sha256(folder: Path) -> str:
    """One hash over an HF folder's weight and config files (names and contents)."""
    digest = hashlib.sha256()
    for file in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(file.relative_to(folder)).encode() + b"\0")
        digest.update(sha256_file(file).encode())
    return digest.hexdigest()


def default_model_path() -> Path:
    """The demo GGUF in the asset cache (installed by `fimreplay assets install`)."""
    return cache_dir() / "models" / DEFAULT_GGUF


def model_asset_path(spec: str) -> Path | None:
    """The installed GGUF of a model asset named `spec` (its name or alias, e.g.
    `qwen2.5-coder-1.5b`), None when `spec` names no model asset; MissingAsset (naming the install
    command) when it names one that is not installed."""
    from replay.assets import REGISTRY, asset_path

    for asset in REGISTRY.values():
        if spec in (asset.name, *asset.aliases) and asset.main.path.endswith(".gguf"):
            return asset_path(asset.name)
    return None


def model_ref(name: str, model_id: str, family: str | None, path: Path | None = None, sha256: str | None = None) -> ModelRef:
    """The ModelRef of a model found by name or at `path`, with the model as the editor profiles
    take it: the GGUF path (its name picks the template and the standard profile loads its
    tokenizer from it), else the name (Continue matches on it), else, when neither names a
    family, the family."""
    where = str(path) if path is not None else None
    model = where if where and where.endswith(".gguf") else name
    if family_for_model(model) is None and family:
        model = family
    return ModelRef(name=name, model_id=model_id, editor_model=model, family=family, path=where, sha256=sha256)


def model_path(spec: str) -> Path:
    """Where `--model` points: `default` is the demo GGUF (ModelError when it is not installed), a
    model asset's name its installed GGUF, anything else taken as a path (which may not exist:
    then `spec` is a name, the server's or a family's)."""
    path = default_model_path() if spec == "default" else (model_asset_path(spec) or Path(spec).expanduser())
    if spec == "default" and not path.is_file():
        raise ModelError(f"{path}: the default model is not installed (run `fimreplay assets install`)")
    return path


def editor_model(spec: str) -> str:
    """`--model` as the editor profiles take it, for the commands that render or post-process
    without loading a model: the same names as `run` (`default`, a model asset's name, a GGUF
    path), each becoming the GGUF path whose name picks the template and whose vocabulary gives
    the ids; anything else stays a name (Continue matches on it) or a FIM family."""
    path = model_path(spec)
    return str(path) if path.is_file() and path.suffix == ".gguf" else spec


def resolve_model(spec: str, family: str | None = None, revision: str | None = None) -> ModelRef:
    """Turn `--model` into a ModelRef. `default` is the demo GGUF and a model asset's name its
    installed GGUF; a path must exist; anything else is a server-side name."""
    path = model_path(spec)
    if path.is_file():
        meta = gguf_metadata(path)
        sha = sha256_file(path)
        fam = family or family_from_gguf(meta) or family_from_name(path.name)
        return model_ref(meta.get("general.name") or path.stem, f"sha256:{sha}", fam, path, sha)
    if path.is_dir() and (path / "config.json").is_file():
        sha = folder_sha256(path)
        return model_ref(path.name, f"sha256:{sha}", family or family_from_hf(path), path, sha)
    if "/" in spec and path.exists():
        raise ModelError(f"{spec}: neither a GGUF file nor an HF folder with config.json")
    return model_ref(spec, f"{spec}@{revision or 'unknown'}", family or family_from_name(spec))
