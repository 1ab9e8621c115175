"""tabby-agent 1.5.0's completion stage (replay.editors.tabby.completion) on the agent's own
golden files, transcribed from TabbyML/tabby at commit 3c12cc135 ("bump tabby-agent ... to 1.5.0"):

- GOLDEN_CASES: every clients/tabby-agent/src/postprocess/golden/**/*.toml (29), run through both
  chains as postprocess.test.ts does: `├`..`┤` is the completion at the cursor, `╣` the end of
  the expected replace range. 21 use the indentation/bracket-stack rules and must match (or,
  where the toml says notEqual, must not); 8 switch experimentalSyntax on for a tree-sitter
  language, which the replay refuses rather than guess.
"""

from __future__ import annotations

from functools import partial

import pytest

from replay.editors.tabby.completion import postprocess
from replay.editors.tabby.options import TabbyInputError
from tests.editors.tabby.test_completion import UNIT_CASES, V
from tests.support.tabby_golden import Golden


# A case of the 1.5.0 golden files (the state they were transcribed at).
GoldenCase = partial(Golden, "1.5.0")


# clients/tabby-agent/src/postprocess/golden/**/*.toml at 1.5.0 (path named in each case).
GOLDEN_CASES: list[Golden] = [
    GoldenCase('golden/basic_fibonacci_test/python.toml', 'Basic python function fibonacci',
               language='python', options={}, kind='unchanged', not_equal=False,
               text=('def fibonacci(n):\n'
                     '    ├if n == 0 or n == 1:\n'
                     '        return n┤\n'
                     '    return fibonacci(n - 1) + fibonacci(n - 2)\n'),
               expected=None),
    GoldenCase('golden/basic_fibonacci_test/rust.toml', 'Basic rust function fibonacci',
               language='rust', options={}, kind='text', not_equal=False,
               text=('fn fibonacci(├n: u32) -> u32 {\n'
                     '    if n == 0 {\n'
                     '        0\n'
                     '    } else if n == 1 {\n'
                     '        1\n'
                     '    } else {\n'
                     '        fibonacci(n - 1) + fibonacci(n - 2)\n'
                     '    }\n'
                     '}┤)\n'),
               expected=('fn fibonacci(├n: u32) -> u32 {\n'
                         '    if n == 0 {\n'
                         '        0\n'
                         '    } else if n == 1 {\n'
                         '        1\n'
                         '    } else {\n'
                         '        fibonacci(n - 1) + fibonacci(n - 2)\n'
                         '    }\n'
                         '}┤)╣\n')),
    GoldenCase('golden/basic_fibonacci_test/typescript.toml', 'Basic typescript function fibonacci',
               language='typescript', options={}, kind='text', not_equal=False,
               text=('function fibonacci(n:├ number): number {\n'
                     '  if (n <= 1) {\n'
                     '    return n;\n'
                     '  }\n'
                     '  return fibonacci(n - 1) + fibonacci(n - 2);\n'
                     '}┤)\n'),
               expected=('function fibonacci(n:├ number): number {\n'
                         '  if (n <= 1) {\n'
                         '    return n;\n'
                         '  }\n'
                         '  return fibonacci(n - 1) + fibonacci(n - 2);\n'
                         '}┤)╣\n')),
    GoldenCase('golden/limit_scope/basic.toml', 'Limit scope: keep unchanged',
               language='typescript', options={}, kind='unchanged', not_equal=False,
               text=('export class Foo {\n'
                     '  private _foo: number;\n'
                     '  \n'
                     '  constructor() {\n'
                     '    this._foo = 1;\n'
                     '  }\n'
                     '  \n'
                     '  update(value): Foo {\n'
                     '    ├this._foo = value;\n'
                     '    return this;┤\n'
                     '  }\n'
                     '}\n'),
               expected=None),
    GoldenCase('golden/limit_scope/experimental_block_01.toml', 'Limit scope experimental: limit to block when completing a line: case 01',
               language='typescript', options={'postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine': True}, kind='unchanged', not_equal=False,
               text=('export class Foo {\n'
                     '  private _foo: number;\n'
                     '  \n'
                     '  constructor() {\n'
                     '    this._foo = 1;\n'
                     '  }\n'
                     '  \n'
                     '  update(value): Foo {\n'
                     '    this._foo =├ value;\n'
                     '    return this;┤\n'
                     '  }\n'
                     '}\n'),
               expected=None),
    GoldenCase('golden/limit_scope/experimental_block_02.toml', 'Limit scope experimental: limit to block when completing a line: case 02',
               language='javascript', options={'postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine': True}, kind='unchanged', not_equal=False,
               text=('function check(obj) {\n'
                     '  // if obj.a is defined, then return t├rue\n'
                     '  if (obj.a) {\n'
                     '    return true;\n'
                     '  }┤\n'
                     '  return false;\n'
                     '}\n'),
               expected=None),
    GoldenCase('golden/limit_scope/experimental_syntax_rust_01.toml', 'Limit scope experimental: syntax rust: case 01',
               language='rust', options={'postprocess.limitScope.experimentalSyntax': True}, kind='text', not_equal=False,
               text=('pub struct StopCondition {\n'
                     '    stop_re: Option<Regex>,\n'
                     '    max_decoding_length: ├usize,\n'
                     '    max_decoding_time: Duration,\n'
                     '}┤\n'
                     '}\n'),
               expected=('pub struct StopCondition {\n'
                         '    stop_re: Option<Regex>,\n'
                         '    max_decoding_length: ├usize,\n'
                         '    max_decoding_time: Duration,┤\n'
                         '}\n')),
    GoldenCase('golden/limit_scope/experimental_syntax_rust_02.toml', 'Limit scope experimental: syntax rust: case 02',
               language='rust', options={'postprocess.limitScope.experimentalSyntax': True}, kind='text', not_equal=False,
               text=('fn add(x: i32, y: i32) -> i32 {\n'
                     '    println!("x:├ {}", x);\n'
                     '    println!("y: {}", y);\n'
                     '    println!("x + y: {}┤", x);\n'
                     '    return x + y;\n'
                     '}\n'),
               expected=('fn add(x: i32, y: i32) -> i32 {\n'
                         '    println!("x:├ {}┤", x);\n'
                         '    return x + y;\n'
                         '}\n')),
    GoldenCase('golden/limit_scope/experimental_syntax_typescript_01.toml', 'Limit scope experimental: syntax typescript: case 01',
               language='typescript', options={'postprocess.limitScope.experimentalSyntax': True}, kind='unchanged', not_equal=False,
               text=('export class Foo {\n'
                     '  private _foo: number;\n'
                     '  \n'
                     '  constructor() {\n'
                     '    this._foo = 1;\n'
                     '  }\n'
                     '  \n'
                     '  update(value): Foo {\n'
                     '    ├this._foo = value;\n'
                     '    return this;┤\n'
                     '  }\n'
                     '\n'
                     '  get foo(): number {\n'
                     '    return this._foo;\n'
                     '  }\n'
                     '}\n'),
               expected=None),
    GoldenCase('golden/limit_scope/fill_in_line_01.toml', 'Limit scope: fill in line: case 01',
               language='javascript', options={}, kind='unchanged', not_equal=False,
               text=('function assert(condition, message) {\n'
                     '  if (!condition) {\n'
                     '    throw new Error(message);\n'
                     '  }\n'
                     '}\n'
                     '\n'
                     'var a = 0;\n'
                     'var b = 1;\n'
                     'assert(├a === b┤, "a is not equal to b");\n'
                     '\n'),
               expected=None),
    GoldenCase('golden/limit_scope/to_block_01.toml', 'Limit scope: limit to block scope: case 01',
               language='typescript', options={}, kind='text', not_equal=False,
               text=('export class Foo {\n'
                     '  private _foo: number;\n'
                     '  \n'
                     '  constructor() {\n'
                     '    this._foo = 1;\n'
                     '  }\n'
                     '  \n'
                     '  get├ foo(): number {\n'
                     '    return this._foo;\n'
                     '  }\n'
                     '\n'
                     '  set foo(value: number) {\n'
                     '    this._foo = value;\n'
                     '  }┤\n'
                     '}\n'),
               expected=('export class Foo {\n'
                         '  private _foo: number;\n'
                         '  \n'
                         '  constructor() {\n'
                         '    this._foo = 1;\n'
                         '  }\n'
                         '  \n'
                         '  get├ foo(): number {\n'
                         '    return this._foo;\n'
                         '  }┤\n'
                         '}\n')),
    GoldenCase('golden/limit_scope/to_block_02.toml', 'Limit scope: limit to block scope: case 02',
               language='typescript', options={}, kind='text', not_equal=False,
               text=('export class Foo {\n'
                     '  private _foo: number;\n'
                     '  \n'
                     '  constructor() {\n'
                     '    this._foo = 1;\n'
                     '  }\n'
                     '  \n'
                     '  get foo(): number├ {\n'
                     '    return this._foo;\n'
                     '  }\n'
                     '\n'
                     '  set foo(value: number) {\n'
                     '    this._foo = value;\n'
                     '  }┤\n'
                     '}\n'),
               expected=('export class Foo {\n'
                         '  private _foo: number;\n'
                         '  \n'
                         '  constructor() {\n'
                         '    this._foo = 1;\n'
                         '  }\n'
                         '  \n'
                         '  get foo(): number├ {\n'
                         '    return this._foo;\n'
                         '  }┤\n'
                         '}\n')),
    GoldenCase('golden/limit_scope/to_block_03.toml', 'Limit scope: limit to block scope: case 03',
               language='javascript', options={'postprocess.limitScope.experimentalSyntax': False, 'postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine': False}, kind='text', not_equal=False,
               text=('function check(obj) {\n'
                     '  // if obj.a is defined, then return t├rue\n'
                     '  if (obj.a) {\n'
                     '    return true;\n'
                     '  }┤\n'
                     '  return false;\n'
                     '}\n'),
               expected=('function check(obj) {\n'
                         '  // if obj.a is defined, then return t├rue┤\n'
                         '  return false;\n'
                         '}\n')),
    GoldenCase('golden/limit_scope/to_line_01.toml', 'Limit scope: limit to single line when completing a line: case 01',
               language='typescript', options={'postprocess.limitScope.experimentalSyntax': False, 'postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine': False}, kind='text', not_equal=False,
               text=('export class Foo {\n'
                     '  private _foo: number;\n'
                     '  \n'
                     '  constructor() {\n'
                     '    this._foo = 1;\n'
                     '  }\n'
                     '  \n'
                     '  update(value): Foo {\n'
                     '    this._foo =├ value;\n'
                     '    return this;┤\n'
                     '  }\n'
                     '}\n'),
               expected=('export class Foo {\n'
                         '  private _foo: number;\n'
                         '  \n'
                         '  constructor() {\n'
                         '    this._foo = 1;\n'
                         '  }\n'
                         '  \n'
                         '  update(value): Foo {\n'
                         '    this._foo =├ value;┤\n'
                         '  }\n'
                         '}\n')),
    GoldenCase('golden/remove_duplication/basic.toml', 'Remove duplication: keep unchanged',
               language='javascript', options={}, kind='discard', not_equal=False,
               text=('function print(obj) {\n'
                     '  ├console.log(obj);┤\n'
                     '  console.log(obj);\n'
                     '}\n'),
               expected=None),
    GoldenCase('golden/remove_duplication/duplicated_block_closing_line_01.toml', 'Remove duplication: duplicated block closing line: case 01',
               language='javascript', options={}, kind='text', not_equal=False,
               text=('function log(obj) {├\n'
                     '  console.log(obj);\n'
                     '};┤\n'
                     '}\n'),
               expected=('function log(obj) {├\n'
                         '  console.log(obj);┤\n'
                         '}\n')),
    GoldenCase('golden/remove_duplication/duplicated_line_suffix.toml', 'Remove duplication: dupicated line suffix',
               language='typescript', options={}, kind='text', not_equal=True,
               text=('const log = ({ ok }: { ok:├ boolean }) => { ┤ }) => {\n'
                     '  console.log(ok);\n'
                     '}\n'),
               expected=('const log = ({ ok }: { ok:├ boolean┤ }) => {\n'
                         '  console.log(ok);\n'
                         '}\n')),
    GoldenCase('golden/remove_duplication/similar_lines_01.toml', 'Remove duplication: similar lines: bad case 01',
               language='javascript', options={}, kind='unchanged', not_equal=True,
               text=('function check(obj) {\n'
                     '  if (obj.a) {\n'
                     '    return true;\n'
                     '  ├}┤\n'
                     '}\n'),
               expected=None),
    GoldenCase('golden/remove_duplication/similar_lines_02.toml', 'Remove duplication: similar lines: bad case 01',
               language='typescript', options={}, kind='unchanged', not_equal=True,
               text=('import { expect } from "chai";\n'
                     'import { fibonacci } from "./fibonacci";\n'
                     '\n'
                     'describe("tests: fibonacci", () => {\n'
                     '  it("test case 1", () => {\n'
                     '    const input = 0;\n'
                     '    const expected = 1;\n'
                     '    expect(fibonacci(input)).to.be.eq(expected);\n'
                     '  });\n'
                     '\n'
                     '  ├it("test case 2", () => {\n'
                     '    const input = 1;\n'
                     '    const expected = 1;\n'
                     '    expect(fibonacci(input)).to.be.eq(expected);\n'
                     '  });┤\n'
                     '  \n'
                     '  it("test case 3", () => {\n'
                     '    const input = 2;\n'
                     '    const expected = 2;\n'
                     '    expect(fibonacci(input)).to.be.eq(expected);\n'
                     '  });\n'
                     '});\n'
                     '\n'),
               expected=None),
    GoldenCase('golden/replace_range/basic.toml', 'Replace range: basic',
               language='javascript', options={}, kind='text', not_equal=False,
               text=('function printHello(├) {\n'
                     "  console.log('Hello');\n"
                     '}┤)\n'),
               expected=('function printHello(├) {\n'
                         "  console.log('Hello');\n"
                         '}┤)╣\n')),
    GoldenCase('golden/replace_range/experimental_syntax_javascript_01.toml', 'Replace range experimental: syntax javascript: case 01',
               language='javascript', options={'postprocess.limitScope.experimentalSyntax': True, 'postprocess.calculateReplaceRange.experimentalSyntax': True}, kind='text', not_equal=False,
               text=('const stream = process.stdin;\n'
                     '// just print data string\n'
                     "stream.on('data', (data) => {├\n"
                     '  console.log(data.toString());\n'
                     '});┤})\n'),
               expected=('const stream = process.stdin;\n'
                         '// just print data string\n'
                         "stream.on('data', (data) => {├\n"
                         '  console.log(data.toString());\n'
                         '});┤})╣\n')),
    GoldenCase('golden/replace_range/experimental_syntax_mismatched_01.toml', 'Replace range experimental: syntax mismatched: case 01',
               language='typescript', options={'postprocess.limitScope.experimentalSyntax': True, 'postprocess.calculateReplaceRange.experimentalSyntax': True}, kind='text', not_equal=False,
               text=('def fibonacci(├n):\n'
                     '  if n == 0:\n'
                     '    return 0\n'
                     '  elif n == 1:\n'
                     '    return 1\n'
                     '  else:\n'
                     '    return fibonacci(n - 1) + fibonacci(n - 2)┤)\n'),
               expected=('def fibonacci(├n):\n'
                         '  if n == 0:\n'
                         '    return 0\n'
                         '  elif n == 1:\n'
                         '    return 1\n'
                         '  else:\n'
                         '    return fibonacci(n - 1) + fibonacci(n - 2)┤)╣\n')),
    GoldenCase('golden/replace_range/experimental_syntax_rust_01.toml', 'Replace range experimental: syntax rust: bad case 01',
               language='rust', options={'postprocess.limitScope.experimentalSyntax': True, 'postprocess.calculateReplaceRange.experimentalSyntax': True}, kind='text', not_equal=True,
               text=('pub fun myTest(&self, text: String) {\n'
                     '    let mut body = HashMap::new();\n'
                     '    body.insert("├text".to_string(), text);┤")\n'
                     '    let mut headers = HashMap::new();\n'
                     '    headers.insert("Content-Type".to_string(), "application/json".to_string());\n'
                     '}\n'),
               expected=('pub fun myTest(&self, text: String) {\n'
                         '    let mut body = HashMap::new();\n'
                         '    body.insert("├text".to_string(), text);┤")╣\n'
                         '    let mut headers = HashMap::new();\n'
                         '    headers.insert("Content-Type".to_string(), "application/json".to_string());\n'
                         '}\n')),
    GoldenCase('golden/replace_range/experimental_syntax_rust_01_ref.toml', 'Replace range experimental: syntax rust: case 01 (ref)',
               language='rust', options={'postprocess.limitScope.experimentalSyntax': True, 'postprocess.calculateReplaceRange.experimentalSyntax': False}, kind='text', not_equal=False,
               text=('pub fun myTest(&self, text: String) {\n'
                     '    let mut body = HashMap::new();\n'
                     '    body.insert("├text".to_string(), text);┤")\n'
                     '    let mut headers = HashMap::new();\n'
                     '    headers.insert("Content-Type".to_string(), "application/json".to_string());\n'
                     '}\n'),
               expected=('pub fun myTest(&self, text: String) {\n'
                         '    let mut body = HashMap::new();\n'
                         '    body.insert("├text".to_string(), text);┤")╣\n'
                         '    let mut headers = HashMap::new();\n'
                         '    headers.insert("Content-Type".to_string(), "application/json".to_string());\n'
                         '}\n')),
    GoldenCase('golden/replace_range/experimental_syntax_typescript_01.toml', 'Replace range experimental: syntax typescript: case 01',
               language='typescript', options={'postprocess.limitScope.experimentalSyntax': True, 'postprocess.calculateReplaceRange.experimentalSyntax': True}, kind='text', not_equal=False,
               text=('function print(obj: any) {\n'
                     '  console.log("Obj: ├", obj);┤")\n'
                     '}\n'),
               expected=('function print(obj: any) {\n'
                         '  console.log("Obj: ├", obj);┤")╣\n'
                         '}\n')),
    GoldenCase('golden/replace_range/jsx_tags_01.toml', 'Replace range: jsx tags: case 01',
               language='javascriptreact', options={}, kind='text', not_equal=False,
               text=("import React from 'react';\n"
                     "import ReactDOM from 'react-dom/client';\n"
                     "import './index.css';\n"
                     "import App from './App';\n"
                     '\n'
                     "const root = ReactDOM.createRoot(document.getElementById('root'));\n"
                     'const message = <div>Hello world!</div>\n'
                     'root.render(\n'
                     '  <React.StrictMode>\n'
                     '    <App ├message={message} />┤/>\n'
                     '  </React.StrictMode>\n'
                     ');\n'
                     '\n'),
               expected=("import React from 'react';\n"
                         "import ReactDOM from 'react-dom/client';\n"
                         "import './index.css';\n"
                         "import App from './App';\n"
                         '\n'
                         "const root = ReactDOM.createRoot(document.getElementById('root'));\n"
                         'const message = <div>Hello world!</div>\n'
                         'root.render(\n'
                         '  <React.StrictMode>\n'
                         '    <App ├message={message} />┤/>╣\n'
                         '  </React.StrictMode>\n'
                         ');\n'
                         '\n')),
    GoldenCase('golden/replace_range/jsx_tags_02.toml', 'Replace range: jsx tags: case 02',
               language='javascriptreact', options={}, kind='text', not_equal=False,
               text=("import React from 'react';\n"
                     "import ReactDOM from 'react-dom/client';\n"
                     "import './index.css';\n"
                     "import App from './App';\n"
                     '\n'
                     "const root = ReactDOM.createRoot(document.getElementById('root'));\n"
                     'const message = <div>Hello world!</div>\n'
                     'root.render(\n'
                     '  <React.StrictMode>\n'
                     '    <App message={message} />\n'
                     '  </├React.StrictMode>┤>\n'
                     ');\n'
                     '\n'),
               expected=("import React from 'react';\n"
                         "import ReactDOM from 'react-dom/client';\n"
                         "import './index.css';\n"
                         "import App from './App';\n"
                         '\n'
                         "const root = ReactDOM.createRoot(document.getElementById('root'));\n"
                         'const message = <div>Hello world!</div>\n'
                         'root.render(\n'
                         '  <React.StrictMode>\n'
                         '    <App message={message} />\n'
                         '  </├React.StrictMode>┤>╣\n'
                         ');\n'
                         '\n')),
    GoldenCase('golden/replace_range/multiple_01.toml', 'Replace range: multiple closing brackets: case 01',
               language='javascript', options={}, kind='text', not_equal=False,
               text=('const stream = process.stdin;\n'
                     '// just print data string\n'
                     "stream.on('data', (data) => {├\n"
                     '  console.log(data.toString());\n'
                     '});┤})\n'),
               expected=('const stream = process.stdin;\n'
                         '// just print data string\n'
                         "stream.on('data', (data) => {├\n"
                         '  console.log(data.toString());\n'
                         '});┤})╣\n')),
    GoldenCase('golden/replace_range/multiple_02.toml', 'Replace range: multiple closing brackets: case 02',
               language='typescript', options={}, kind='text', not_equal=False,
               text=('function clamp(value: number, min: number, max: number): number {\n'
                     '  return Math.max(Math.min(├value, max), min);┤))\n'
                     '}\n'),
               expected=('function clamp(value: number, min: number, max: number): number {\n'
                         '  return Math.max(Math.min(├value, max), min);┤))╣\n'
                         '}\n')),
]


def parse_doc(text: str) -> tuple[str, str, str, int]:
    """postprocess.test.ts parseDocContext: (prefix, completion, suffix, replaced characters
    after the cursor) of a golden text (`├`/`┤` the completion, `╣` the end of the replace range)."""
    start, end = text.index("├"), text.rindex("┤")
    replace_end = text.rfind("╣")
    replace_end = end if replace_end < 0 else replace_end
    return text[:start], text[start + 1:end], text[replace_end + 1:], max(replace_end - end - 1, 0)


def golden_expected(case: Golden) -> tuple[str | None, int]:
    _, completion, _, _ = parse_doc(case.text)
    if case.kind == "unchanged":
        return completion or None, 0
    if case.kind == "discard":
        return None, 0
    assert case.expected is not None
    _, text, _, replaced = parse_doc(case.expected)
    return (text or None), replaced


def syntax_case(case: Golden) -> bool:
    return any(case.options.get(k) for k in ("postprocess.limitScope.experimentalSyntax",
                                             "postprocess.calculateReplaceRange.experimentalSyntax"))


MODELLED = [c for c in GOLDEN_CASES if not syntax_case(c)]
TREE_SITTER = [c for c in GOLDEN_CASES if syntax_case(c)]


@pytest.mark.parametrize("case", MODELLED, ids=[c.path for c in MODELLED])
def test_golden_postprocess(case: Golden) -> None:
    """clients/tabby-agent/src/postprocess/<case.path> through preCacheProcess + postCacheProcess."""
    prefix, completion, suffix, _ = parse_doc(case.text)
    shown = postprocess(prefix, suffix, completion, case.language, config=case.options, version=V)
    got = (shown.text, shown.replace_after)
    if case.not_equal:
        assert got != golden_expected(case)
    else:
        assert got == golden_expected(case)


@pytest.mark.parametrize("case", TREE_SITTER, ids=[c.path for c in TREE_SITTER])
def test_golden_tree_sitter_cases_are_refused(case: Golden) -> None:
    """clients/tabby-agent/src/postprocess/<case.path>: experimentalSyntax on for a language with a
    tree-sitter grammar in 1.5.0 (src/syntax/parser.ts): the replay does not parse, it says so."""
    prefix, completion, suffix, _ = parse_doc(case.text)
    with pytest.raises(TabbyInputError, match="tree-sitter"):
        postprocess(prefix, suffix, completion, case.language, config=case.options, version=V)


def test_case_counts() -> None:
    """51 rule assertions and 29 golden files at 1.5.0; 21 goldens are modelled, 8 need tree-sitter."""
    assert (len(UNIT_CASES), len(GOLDEN_CASES), len(MODELLED), len(TREE_SITTER)) == (51, 29, 21, 8)


def test_syntax_switch_falls_back_for_languages_without_a_grammar() -> None:
    """limitScope.ts: limitScopeBySyntax throws for a language without a grammar (Solidity in
    1.5.0) and the agent uses limitScopeByIndentation, so the switch changes nothing there."""
    prefix, suffix = "contract A {\n    function f() public {\n        ", "\n    }\n}\n"
    raw = "x = 1;\n    }\n\n    function g() public {}\n}"
    on = {"postprocess.limitScope.experimentalSyntax": True, "postprocess.calculateReplaceRange.experimentalSyntax": True}
    assert (postprocess(prefix, suffix, raw, "solidity", config=on, version=V)
            == postprocess(prefix, suffix, raw, "solidity", version=V))
