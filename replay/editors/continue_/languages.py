"""Continue's language table: the name and line comment of a file by its extension."""

from __future__ import annotations

from replay.editors.continue_.uri import uri_basename

_LANG = {
    "TypeScript": "//", "JavaScript": "//", "Python": "#", "Java": "//", "C++": "//", "C#": "//",
    "C": "//", "Scala": "//", "Go": "//", "Rust": "//", "Haskell": "--", "PHP": "//",
    "Ruby on Rails": "#", "Swift": "//", "Kotlin": "//", "Ruby": "#", "Clojure": ";", "Julia": "#",
    "F#": "//", "R": "#", "Dart": "//", "Solidity": "//", "Lua": "--", "YAML": "#", "JSON": "//",
    "Markdown": "",
}
_EXT = {
    "ts": "TypeScript", "js": "JavaScript", "tsx": "TypeScript", "json": "JSON", "jsx": "TypeScript",
    "ipynb": "Python", "py": "Python", "pyi": "Python", "java": "Java", "cpp": "C++", "cxx": "C++",
    "h": "C++", "hpp": "C++", "cs": "C#", "c": "C", "scala": "Scala", "sc": "Scala", "go": "Go",
    "rs": "Rust", "hs": "Haskell", "php": "PHP", "rb": "Ruby", "rails": "Ruby on Rails",
    "swift": "Swift", "kt": "Kotlin", "clj": "Clojure", "cljs": "Clojure", "cljc": "Clojure",
    "jl": "Julia", "fs": "F#", "fsi": "F#", "fsx": "F#", "fsscript": "F#", "r": "R", "dart": "Dart",
    "sol": "Solidity", "yaml": "YAML", "yml": "YAML", "md": "Markdown", "lua": "Lua", "luau": "Lua",
}


def language_for(uri: str) -> tuple[str, str]:
    """languageForFilepath: (name, singleLineComment) by lower-cased extension, else TypeScript."""
    base = uri_basename(uri)
    ext = base.split(".")[-1].lower() if "." in base else ""
    name = _EXT.get(ext, "TypeScript")
    return name, _LANG[name]

