"""tabby-agent's completion stage at every state it changed, on the agent's own test cases
(replay.editors.tabby.completion and rules.py), transcribed from TabbyML/tabby
clients/tabby-agent at the commit each case names:

- UNITS: every assertion of src/codeCompletion/postprocess/<rule>.test.ts at 5dfe7a125 (tabby-agent
  1.8.0, 49), at eae43ba76 (main on 2024-12-30, 70: dropMinimum, normalizeIndentation,
  removeDuplicateSuffixLines, the line-end and semicolon replace ranges) and at e61d780ca (the
  freeze, 55: the context of 309edd172), each with the states (and commits) it was read at when
  the same assertion holds at several. Documents and completions are the values the tests'
  `dedent` 0.7.0 template tags produce (`║` the cursor); until 309edd172 documentContext keeps
  the whole text (language set after), from 309edd172 its first line is the language id and the
  document is "\\n" + the rest. A rule that drops the text gives None; for the replace-range
  rules `*_replace` is the item's replaceSuffix. The 1.5.0 unit assertions
  (tests/editors/tabby/test_completion.py UNIT_CASES) also run at 1.3.0 (b75f12e5f), without the two
  html/jsx bracket cases bb2afea15 added.
- GOLDENS: every postprocess/golden/**/*.toml at b75f12e5f (1.3.0, 22), eb7ce024e (1.3.1, 26),
  e71cef8a9 (1.6.0, 26; the same files at 1.7.0) and 5dfe7a125 (1.8.0, 26; the same files at the
  freeze), run through both chains as that state's postprocess.test.ts does (`├`..`┤` the
  completion, `╣` the end of the expected replace range; from 309edd172 the test compares the
  text only). The 1.5.0 files (tests/editors/tabby/test_completion_golden.py GOLDEN_CASES, the same at
  a818905c7) also run at 1.3.2, 1.3.3 and 1.4.2. A case that switches a tree-sitter rule on (by
  its config or, in 1.3.1/1.3.2, by default) for a language with a grammar is refused.
"""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import pytest

from replay.editors.tabby import filters
from replay.editors.tabby.completion import SYNTAX_LANGUAGES, complete, postprocess, state_options, stream_stop
from replay.editors.tabby.context import CompletionContext
from replay.editors.tabby.options import TabbyInputError
from replay.editors.tabby.ranges import (
    replace_range_by_bracket_stack,
    replace_range_by_semicolon,
    replace_range_line_end,
)
from replay.editors.tabby.releases import AgentState, agent_state
from replay.editors.tabby.rules import (
    BLOCK_CLOSING_TRIM_END,
    COMPLETION_RULES,
    HTML_JSX_AUTO_CLOSING,
    NORMALIZE_INDENTATION_GUARD,
    SEMICOLON_LINE_END,
)
from replay.records import EditorInput
from tests.editors.tabby.test_completion import UNIT_CASES
from tests.editors.tabby.test_completion_golden import GOLDEN_CASES, GoldenCase, golden_expected, parse_doc


class Unit(NamedTuple):
    """One assertion of a <rule>.test.ts: the rule alone on `completion` at the cursor `║` of
    `document`; kind "eq" (result == expected) or "not" (a documented bad case)."""

    states: tuple[str, ...]
    file: str
    commits: tuple[str, ...]
    test: str
    rule: str
    kind: str
    language: str
    indentation: str | None
    document: str
    completion: str
    completion_replace: str
    expected: str | None
    expected_replace: str


class Golden(NamedTuple):
    """One golden/**/*.toml of the state `state`: options are the toml's [config] as dotted keys."""

    state: str
    path: str
    description: str
    language: str
    options: dict[str, Any]
    kind: str  # unchanged | discard | text
    not_equal: bool
    text: str
    expected: str | None


UNITS: list[Unit] = [
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'calculateReplaceRangeByBracketStack.test.ts', ('5dfe7a125', 'eae43ba76'), 'should handle auto closing quotes', 'calculateReplaceRangeByBracketStack', 'eq', 'typescript', None, 'const hello = "║"', 'hello";', '', 'hello";', '"'),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'calculateReplaceRangeByBracketStack.test.ts', ('5dfe7a125', 'eae43ba76'), 'should handle auto closing quotes', 'calculateReplaceRangeByBracketStack', 'eq', 'typescript', None, 'let htmlMarkup = `║`', '<h1>\\${message}</h1>`;', '', '<h1>\\${message}</h1>`;', '`'),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'calculateReplaceRangeByBracketStack.test.ts', ('5dfe7a125', 'eae43ba76'), 'should handle multiple auto closing brackets', 'calculateReplaceRangeByBracketStack', 'eq', 'typescript', None, "process.on('data', (data) => {║})", '\n  console.log(data);\n});', '', '\n  console.log(data);\n});', '})'),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'calculateReplaceRangeByBracketStack.test.ts', ('5dfe7a125', 'eae43ba76'), 'should handle multiple auto closing brackets', 'calculateReplaceRangeByBracketStack', 'eq', 'typescript', None, 'let mat: number[][][] = [[[║]]]', '1, 2], [3, 4]], [[5, 6], [7, 8]]];', '', '1, 2], [3, 4]], [[5, 6], [7, 8]]];', ']]]'),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'calculateReplaceRangeByBracketStack.test.ts', ('5dfe7a125', 'eae43ba76'), 'should handle html tags', 'calculateReplaceRangeByBracketStack', 'eq', 'html', None, '<html></h║>', 'tml>', '', 'tml>', '>'),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'calculateReplaceRangeByBracketStack.test.ts', ('5dfe7a125', 'eae43ba76'), 'should handle jsx tags', 'calculateReplaceRangeByBracketStack', 'eq', 'javascriptreact', None, 'root.render(\n  <React.StrictMode>\n    <App m║/>\n  </React.StrictMode>\n);', 'essage={message} />', '', 'essage={message} />', '/>'),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'calculateReplaceRangeByBracketStack.test.ts', ('5dfe7a125', 'eae43ba76'), 'cannot handle the case of completion bracket stack is same with suffix but should not be replaced', 'calculateReplaceRangeByBracketStack', 'not', 'typescript', None, 'function clamp(n: number, max: number, min: number): number {\n  return Math.max(Math.min(║);\n}', 'n, max), min', '', 'n, max), min', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'dropDuplicated.test.ts', ('5dfe7a125', 'eae43ba76'), 'should drop completion duplicated with suffix', 'dropDuplicated', 'eq', 'javascript', None, 'let sum = (a, b) => {\n  ║return a + b;\n};', 'return a + b;', '', None, ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'dropDuplicated.test.ts', ('5dfe7a125', 'eae43ba76'), 'should drop completion similar to suffix', 'dropDuplicated', 'eq', 'javascript', None, 'let sum = (a, b) => {\n  return a + b;\n  ║\n};', '}', '', None, ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'dropMinimum.test.ts', ('5dfe7a125', 'eae43ba76'), 'should return null if input is < 4 non-whitespace characters', 'dropMinimum', 'eq', 'plaintext', None, 'dummy║', '\n', '', None, ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'dropMinimum.test.ts', ('5dfe7a125', 'eae43ba76'), 'should return null if input is < 4 non-whitespace characters', 'dropMinimum', 'eq', 'plaintext', None, 'dummy║', '\t\n', '', None, ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'dropMinimum.test.ts', ('5dfe7a125', 'eae43ba76'), 'should return null if input is < 4 non-whitespace characters', 'dropMinimum', 'eq', 'plaintext', None, 'dummy║', 'ab\t\n', '', None, ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'dropMinimum.test.ts', ('5dfe7a125', 'eae43ba76'), 'should keep unchanged if input is >= 4 non-whitespace characters', 'dropMinimum', 'eq', 'plaintext', None, 'dummy║', 'Greater than 4', '', 'Greater than 4', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'formatIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), 'should format indentation if first line of completion is over indented.', 'formatIndentation', 'eq', 'typescript', '  ', 'function clamp(n: number, max: number, min: number): number {\n  ║\n}', '  return Math.max(Math.min(n, max), min);', '', 'return Math.max(Math.min(n, max), min);', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'formatIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), 'should format indentation if first line of completion is wrongly indented.', 'formatIndentation', 'eq', 'typescript', '    ', 'function clamp(n: number, max: number, min: number): number {\n║\n}', '  return Math.max(Math.min(n, max), min);', '', '    return Math.max(Math.min(n, max), min);', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'formatIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), 'should format indentation if completion lines is over indented.', 'formatIndentation', 'eq', 'python', '  ', 'def findMax(arr):║', '\n    max = arr[0]\n    for i in range(1, len(arr)):\n        if arr[i] > max:\n            max = arr[i]\n    return max\n}', '', '\n  max = arr[0]\n  for i in range(1, len(arr)):\n    if arr[i] > max:\n      max = arr[i]\n  return max\n}', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'formatIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), 'should format indentation if completion lines is wrongly indented.', 'formatIndentation', 'eq', 'python', '    ', 'def findMax(arr):║', '\n  max = arr[0]\n  for i in range(1, len(arr)):\n    if arr[i] > max:\n      max = arr[i]\n  return max\n}', '', '\n    max = arr[0]\n    for i in range(1, len(arr)):\n        if arr[i] > max:\n            max = arr[i]\n    return max\n}', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'formatIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), 'should keep it unchanged if it no indentation specified.', 'formatIndentation', 'eq', 'python', None, 'def findMax(arr):║', '\n    max = arr[0]\n    for i in range(1, len(arr)):\n        if arr[i] > max:\n            max = arr[i]\n    return max\n}', '', '\n    max = arr[0]\n    for i in range(1, len(arr)):\n        if arr[i] > max:\n            max = arr[i]\n    return max\n}', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'formatIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), 'should keep it unchanged if there is indentation in the context.', 'formatIndentation', 'eq', 'python', '\t', 'def hello():\n    return "world"\n\ndef findMax(arr):║', '\n    max = arr[0]\n    for i in range(1, len(arr)):\n        if arr[i] > max:\n            max = arr[i]\n    return max\n}', '', '\n    max = arr[0]\n    for i in range(1, len(arr)):\n        if arr[i] > max:\n            max = arr[i]\n    return max\n}', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'formatIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), 'should keep it unchanged if it is well indented.', 'formatIndentation', 'eq', 'python', '    ', 'def findMax(arr):║', '\n    max = arr[0]\n    for i in range(1, len(arr)):\n        if arr[i] > max:\n            max = arr[i]\n    return max\n}', '', '\n    max = arr[0]\n    for i in range(1, len(arr)):\n        if arr[i] > max:\n            max = arr[i]\n    return max\n}', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'limitScopeByIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), 'should limit scope at sentence end, when completion is continuing uncompleted sentence in the prefix.', 'limitScopeByIndentation', 'eq', 'javascript', None, 'let a =║', ' 1;\nlet b = 2;', '', ' 1;', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'limitScopeByIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), 'should limit scope at sentence end, when completion is continuing uncompleted sentence in the prefix.', 'limitScopeByIndentation', 'eq', 'javascript', None, 'function safeParse(json) {\n  try {\n    console.log║\n  } catch (error) {\n    console.error(error);\n    return null;\n  }\n}', '("Parsing", { json });\n    return JSON.parse(json);\n  } catch (e) {\n    return null;\n  }\n}', '', '("Parsing", { json });', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'limitScopeByIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), 'should limit scope at next indent level, including closing line, when completion is starting a new indent level in next line.', 'limitScopeByIndentation', 'eq', 'javascript', None, 'function findMax(arr) {║}', '\n  let max = arr[0];\n  for (let i = 1; i < arr.length; i++) {\n    if (arr[i] > max) {\n      max = arr[i];\n    }\n  }\n  return max;\n}\nconsole.log(findMax([1, 2, 3, 4, 5]));', '', '\n  let max = arr[0];\n  for (let i = 1; i < arr.length; i++) {\n    if (arr[i] > max) {\n      max = arr[i];\n    }\n  }\n  return max;\n}', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'limitScopeByIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), 'should limit scope at next indent level, including closing line, when completion is continuing uncompleted sentence in the prefix, and starting a new indent level in next line.', 'limitScopeByIndentation', 'eq', 'javascript', None, 'function findMax(arr) {\n  let max = arr[0];\n  for║\n}', ' (let i = 1; i < arr.length; i++) {\n    if (arr[i] > max) {\n      max = arr[i];\n    }\n  }\n  return max;\n}\nconsole.log(findMax([1, 2, 3, 4, 5]));', '', ' (let i = 1; i < arr.length; i++) {\n    if (arr[i] > max) {\n      max = arr[i];\n    }\n  }', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'limitScopeByIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), 'should limit scope at current indent level, including closing line, when completion starts new sentences at same indent level.', 'limitScopeByIndentation', 'eq', 'javascript', None, 'function findMax(arr) {\n  let max = arr[0];║\n}', '\n  for (let i = 1; i < arr.length; i++) {\n    if (arr[i] > max) {\n      max = arr[i];\n    }\n  }\n  return max;\n}', '', '\n  for (let i = 1; i < arr.length; i++) {\n    if (arr[i] > max) {\n      max = arr[i];\n    }\n  }\n  return max;\n}', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'limitScopeByIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), 'should allow only one level closing bracket', 'limitScopeByIndentation', 'eq', 'javascript', None, 'function safeParse(json) {\n  try {\n    return JSON.parse(json);\n  } catch (e) {\n    return null;║', '\n  }\n}', '', '\n  }', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'limitScopeByIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), 'should allow level closing bracket at current line, it looks same as starts new sentences', 'limitScopeByIndentation', 'eq', 'javascript', None, 'function helloworld() {\n  console.log("hello");\n  ║', '}', '', '}', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'limitScopeByIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), 'should not allow level closing bracket, when the suffix lines have same indent level', 'limitScopeByIndentation', 'eq', 'javascript', None, 'function helloworld() {\n  console.log("hello");║\n  console.log("world");\n}', '\n}', '', '', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'limitScopeByIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), 'should use indent level of previous line, when current line is empty.', 'limitScopeByIndentation', 'eq', 'javascript', None, 'function safeParse(json) {\n  try {\n    ║\n  }\n}', 'return JSON.parse(json);\n  } catch (e) {\n    return null;\n  }\n}', '', 'return JSON.parse(json);\n  } catch (e) {\n    return null;\n  }', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'limitScopeByIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), "cannot handle the case of indent that does'nt have a close line, e.g. chaining call", 'limitScopeByIndentation', 'not', 'javascript', None, 'function sortWords(input) {\n  const output = input.trim()\n    .split("\n")\n    .map((line) => line.split(" "))\n    ║\n}', '.flat()\n    .sort()\n    .join(" ");\n  console.log(output);\n  return output;\n}\nsortWords("world hello");', '', '.flat()\n    .sort()\n    .join(" ");\n  console.log(output);\n  return output;\n}', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'limitScopeByIndentation.test.ts', ('5dfe7a125', 'eae43ba76'), "cannot handle the case of indent that does'nt have a close line, e.g. python def function", 'limitScopeByIndentation', 'not', 'python', None, 'def findMax(arr):\n  ║', 'max = arr[0]\n  for i in range(1, len(arr)):\n    if arr[i] > max:\n      max = arr[i]\n  return max\nfindMax([1, 2, 3, 4, 5])', '', 'max = arr[0]\nfor i in range(1, len(arr)):\n  if arr[i] > max:\n    max = arr[i]\nreturn max', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'removeDuplicatedBlockClosingLine.test.ts', ('5dfe7a125', 'eae43ba76'), 'should remove duplicated block closing line.', 'removeDuplicatedBlockClosingLine', 'eq', 'javascript', None, 'function hello() {\n  ║\n}', 'console.log("hello");\n}', '', 'console.log("hello");', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'removeDuplicatedBlockClosingLine.test.ts', ('5dfe7a125', 'eae43ba76'), 'should remove duplicated block closing line.', 'removeDuplicatedBlockClosingLine', 'eq', 'javascript', None, 'function check(condition) {\n  if (!condition) {\n    ║\n  } else {\n    return;\n  }\n}', 'throw new Error("check not passed");\n  }', '', 'throw new Error("check not passed");', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'removeDuplicatedBlockClosingLine.test.ts', ('5dfe7a125', 'eae43ba76'), 'should not remove non-duplicated block closing line.', 'removeDuplicatedBlockClosingLine', 'eq', 'javascript', None, 'function check(condition) {\n  if (!condition) {\n    ║\n}', 'throw new Error("check not passed");\n  }', '', 'throw new Error("check not passed");\n  }', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'removeLineEndsWithRepetition.test.ts', ('5dfe7a125', 'eae43ba76'), 'should drop one line completion ends with repetition', 'removeLineEndsWithRepetition', 'eq', 'javascript', None, 'let foo = ║', 'foo = foo = foo = foo = foo = foo = foo =', '', None, ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'removeLineEndsWithRepetition.test.ts', ('5dfe7a125', 'eae43ba76'), 'should remove last line that ends with repetition', 'removeLineEndsWithRepetition', 'eq', 'javascript', None, 'let largeNumber = 1000000\nlet veryLargeNumber = ║', '1000000000\nlet superLargeNumber = 1000000000000000000000000000000000000000000000', '', '1000000000', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'removeLineEndsWithRepetition.test.ts', ('5dfe7a125', 'eae43ba76'), 'should keep repetition less than threshold', 'removeLineEndsWithRepetition', 'eq', 'javascript', None, 'let largeNumber = 1000000\nlet veryLargeNumber = ║', '1000000000000', '', '1000000000000', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'removeRepetitiveBlocks.test.ts', ('5dfe7a125', 'eae43ba76'), 'should remove repetitive blocks', 'removeRepetitiveBlocks', 'eq', 'javascript', None, 'function myFuncA() {\n  console.log("myFuncA called.");\n}\n\n║', 'function myFuncB() {\n  console.log("myFuncB called.");\n}\n\nfunction myFuncC() {\n  console.log("myFuncC called.");\n}\n\nfunction myFuncD() {\n  console.log("myFuncD called.");\n}\n\nfunction myFuncE() {\n  console.log("myFuncE called.");\n}\n\nfunction myFuncF() {\n  console.log("myFuncF called.");\n}\n\nfunction myFuncG() {\n  console.log("myFuncG called.");\n}\n\nfunction myFuncH() {\n  console.log("myFuncH ', '', 'function myFuncB() {\n  console.log("myFuncB called.");\n}', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'removeRepetitiveLines.test.ts', ('5dfe7a125', 'eae43ba76'), 'should remove repetitive lines', 'removeRepetitiveLines', 'eq', 'javascript', None, 'function hello() {\n  console.log("hello");\n}\nhello();\nhello();\n║', 'hello();\nhello();\nhello();\nhello();\nhello();\nhello();\nhello();\nhello();\nhello();\nhello();', '', 'hello();', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'removeRepetitiveLines.test.ts', ('5dfe7a125', 'eae43ba76'), 'should remove repetitive lines with patterns', 'removeRepetitiveLines', 'eq', 'javascript', None, 'const a = 1;\n║', 'const b = 1;\nconst c = 1;\nconst d = 1;\nconst e = 1;\nconst f = 1;\nconst g = 1;\nconst h = 1;\nconst i = 1;\nconst j = 1;\nconst k =', '', 'const b = 1;', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'trimMultiLineInSingleLineMode.test.ts', ('5dfe7a125', 'eae43ba76'), 'should trim multiline completions, when the suffix have non-auto-closed chars in the current line.', 'trimMultiLineInSingleLineMode', 'eq', 'javascript', None, 'let error = new Error("Something went wrong");\nconsole.log(║message);', 'message);\nthrow error;', '', None, ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'trimMultiLineInSingleLineMode.test.ts', ('5dfe7a125', 'eae43ba76'), 'should trim multiline completions, when the suffix have non-auto-closed chars in the current line.', 'trimMultiLineInSingleLineMode', 'eq', 'javascript', None, 'let error = new Error("Something went wrong");\nconsole.log(║message);', 'error, message);\nthrow error;', '', 'error, ', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'trimMultiLineInSingleLineMode.test.ts', ('5dfe7a125', 'eae43ba76'), 'should allow singleline completions, when the suffix have non-auto-closed chars in the current line.', 'trimMultiLineInSingleLineMode', 'eq', 'javascript', None, 'let error = new Error("Something went wrong");\nconsole.log(║message);', 'error, ', '', 'error, ', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'trimMultiLineInSingleLineMode.test.ts', ('5dfe7a125', 'eae43ba76'), 'should allow multiline completions, when the suffix only have auto-closed chars that will be replaced in the current line, such as `)]}`.', 'trimMultiLineInSingleLineMode', 'eq', 'javascript', None, 'function findMax(arr) {║}', '\n  let max = arr[0];\n  for (let i = 1; i < arr.length; i++) {\n    if (arr[i] > max) {\n      max = arr[i];\n    }\n  }\n  return max;\n}', '', '\n  let max = arr[0];\n  for (let i = 1; i < arr.length; i++) {\n    if (arr[i] > max) {\n      max = arr[i];\n    }\n  }\n  return max;\n}', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'trimSpace.test.ts', ('5dfe7a125', 'eae43ba76'), 'should remove trailing space', 'trimSpace', 'eq', 'javascript', None, 'let foo = new ║', 'Foo(); ', '', 'Foo();', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'trimSpace.test.ts', ('5dfe7a125', 'eae43ba76'), 'should not remove trailing space if filling in line', 'trimSpace', 'eq', 'javascript', None, 'let foo = sum(║baz)', 'bar, ', '', 'bar, ', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'trimSpace.test.ts', ('5dfe7a125', 'eae43ba76'), 'should remove trailing space if filling in line with suffix starts with space', 'trimSpace', 'eq', 'javascript', None, 'let foo = sum(║ baz)', 'bar, ', '', 'bar,', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'trimSpace.test.ts', ('5dfe7a125', 'eae43ba76'), 'should not remove leading space if current line is blank', 'trimSpace', 'eq', 'javascript', None, 'function sum(a, b) {\n║\n}', '  return a + b;', '', '  return a + b;', ''),
    Unit(('1.8.0', '1.9.0-dev@2024-12-30'), 'trimSpace.test.ts', ('5dfe7a125', 'eae43ba76'), 'should remove leading space if current line is not blank and ends with space', 'trimSpace', 'eq', 'javascript', None, 'let foo = ║', ' sum(bar, baz);', '', 'sum(bar, baz);', ''),
    Unit(('1.9.0-dev@2024-12-30',), 'calculateReplaceRangeByBracketStack.test.ts', ('eae43ba76',), 'should handle bracket case with semicolon', 'calculateReplaceRangeByBracketStack', 'eq', 'typescript', None, 'console.log("║");', 'hello world");', '', 'hello world");', '");'),
    Unit(('1.9.0-dev@2024-12-30',), 'calculateReplaceRangeByBracketStack.test.ts', ('eae43ba76',), 'should handle bracket case with semicolon', 'calculateReplaceRangeByBracketStack', 'eq', 'typescript', None, 'console.log(║);', 'a + b);', '', 'a + b);', ');'),
    Unit(('1.9.0-dev@2024-12-30',), 'calculateReplaceRangeBySemiColon.test.ts', ('eae43ba76',), 'should handle semicolon in string concatenation', 'calculateReplaceRangeBySemiColon', 'eq', 'typescript', None, 'const content = "hello world";\nconst a = "nihao" + ║;', 'content;', '', 'content;', ';'),
    Unit(('1.9.0-dev@2024-12-30',), 'calculateReplaceRangeBySemiColon.test.ts', ('eae43ba76',), 'should handle semicolon at the end of a statement', 'calculateReplaceRangeBySemiColon', 'eq', 'typescript', None, 'const content = "hello world"║;', ';', '', ';', ';'),
    Unit(('1.9.0-dev@2024-12-30',), 'calculateReplaceRangeBySemiColon.test.ts', ('eae43ba76',), 'should not handle any semicolon at the end of a statement', 'calculateReplaceRangeBySemiColon', 'eq', 'typescript', None, 'const content = "hello world"║', '', '', '', ''),
    Unit(('1.9.0-dev@2024-12-30',), 'calculateReplaceRangeBySemiColon.test.ts', ('eae43ba76',), 'should not modify if no semicolon in completion text', 'calculateReplaceRangeBySemiColon', 'eq', 'typescript', None, 'const content = "hello world"║', 'content', '', 'content', ''),
    Unit(('1.9.0-dev@2024-12-30',), 'calculateReplaceRangeBySemiColon.test.ts', ('eae43ba76',), 'should handle multiple semicolons in completion text', 'calculateReplaceRangeBySemiColon', 'eq', 'typescript', None, 'const content = "hello world"║;', 'content;;', '', 'content;;', ';'),
    Unit(('1.9.0-dev@2024-12-30',), 'calculateReplaceRangeBySemiColon.test.ts', ('eae43ba76',), 'should handle semicolon in the middle of a statement', 'calculateReplaceRangeBySemiColon', 'eq', 'typescript', None, 'const content = "hello; world"║;', 'content;', '', 'content;', ';'),
    Unit(('1.9.0-dev@2024-12-30',), 'normalizeIndentation.test.ts', ('eae43ba76',), 'should fix first line extra indentation', 'normalizeIndentation', 'eq', '', None, 'function test() {\n  ║\n}', ' const x = 1;\nconst y = 2;', '', 'const x = 1;\nconst y = 2;', ''),
    Unit(('1.9.0-dev@2024-12-30',), 'normalizeIndentation.test.ts', ('eae43ba76',), 'should remove extra indent', 'normalizeIndentation', 'eq', '', None, 'if (true) {\n  if (condition) {\n    ║\n  }\n}', 'doSomething();\n doAnother();', '', 'doSomething();\ndoAnother();', ''),
    Unit(('1.9.0-dev@2024-12-30',), 'normalizeIndentation.test.ts', ('eae43ba76',), 'should handle both inappropriate first line and extra indent case 01', 'normalizeIndentation', 'eq', '', None, 'if (true) {\n  if (condition) {\n    ║\n  }\n}', ' doSomething();\n doAnother();', '', 'doSomething();\ndoAnother();', ''),
    Unit(('1.9.0-dev@2024-12-30',), 'normalizeIndentation.test.ts', ('eae43ba76',), 'should handle both inappropriate extra indent case 02', 'normalizeIndentation', 'eq', '', None, '{\n  "command": "test",\n  ║\n}', '"title": "Run Test",\n "category": "Tabby"', '', '"title": "Run Test",\n"category": "Tabby"', ''),
    Unit(('1.9.0-dev@2024-12-30',), 'normalizeIndentation.test.ts', ('eae43ba76',), 'should do nothing', 'normalizeIndentation', 'eq', '', None, 'function foo() {\n║\n}', '    bar();', '', '    bar();', ''),
    Unit(('1.9.0-dev@2024-12-30',), 'normalizeIndentation.test.ts', ('eae43ba76',), 'should fix extra indent', 'normalizeIndentation', 'eq', '', None, '{\n ║\n}', '"command": "tabby.inlineCompletion.trigger.automatic",\n "title":  "Trigger Code Completion Automatically",\n "category": "Tabby"', '', '"command": "tabby.inlineCompletion.trigger.automatic",\n"title":  "Trigger Code Completion Automatically",\n"category": "Tabby"', ''),
    Unit(('1.9.0-dev@2024-12-30',), 'normalizeIndentation.test.ts', ('eae43ba76',), "shouldn't change indent", 'normalizeIndentation', 'eq', '', None, '{\n  "command": "tabby.toggleInlineCompletionTriggerMode",\n  "title": "Toggle Code Completion Trigger Mode (Automatic/Manual)",\n  "category": "Tabby"\n},\n║', '{\n  "command": "tabby.inlineCompletion.trigger",\n  "title": "Trigger Code Completion Manually",\n  "category": "Tabby"\n},', '', '{\n  "command": "tabby.inlineCompletion.trigger",\n  "title": "Trigger Code Completion Manually",\n  "category": "Tabby"\n},', ''),
    Unit(('1.9.0-dev@2024-12-30',), 'removeDuplicateSuffixLines.test.ts', ('eae43ba76',), 'should remove duplicated array item', 'removeDuplicateSuffixLines', 'eq', '', None, 'const items = [\n  ║\n  { id: 2 },\n  { id: 3 }\n];', '{ id: 1 },\n{ id: 2 },', '', '{ id: 1 },', ''),
    Unit(('1.9.0-dev@2024-12-30',), 'removeDuplicateSuffixLines.test.ts', ('eae43ba76',), 'should handle empty content after cursor', 'removeDuplicateSuffixLines', 'eq', '', None, 'const a = ║', '42;', '', '42;', ''),
    Unit(('1.9.0-dev@2024-12-30',), 'removeDuplicateSuffixLines.test.ts', ('eae43ba76',), 'should remove duplicated comma items', 'removeDuplicateSuffixLines', 'eq', '', None, 'function example() {\n  const items = [\n    ║\n    4,\n    5,\n    6\n  ];\n}', '1,\n2,\n3,\n4,', '', '1,\n2,\n3,', ''),
    Unit(('1.9.0-dev@2024-12-30',), 'removeDuplicateSuffixLines.test.ts', ('eae43ba76',), 'should remove duplicate method calls', 'removeDuplicateSuffixLines', 'eq', '', None, 'class Example {\n  constructor() {\n    ║\n    this.setup();\n    this.init()\n  }\n}', 'this.value = 1;\nthis.name = "test";\nthis.items = [];\nthis.setup();', '', 'this.value = 1;\nthis.name = "test";\nthis.items = [];', ''),
    Unit(('1.9.0-dev@2024-12-30',), 'removeDuplicateSuffixLines.test.ts', ('eae43ba76',), 'should remove duplicate object properties', 'removeDuplicateSuffixLines', 'eq', '', None, 'const config = {\n  ║\n  enabled: true,\n  debug: false          \n};', 'name: "test",\nvalue: 42,\nitems: [],\nenabled: true,', '', 'name: "test",\nvalue: 42,\nitems: [],', ''),
    Unit(('1.9.0-dev@2024-12-30',), 'removeDuplicateSuffixLines.test.ts', ('eae43ba76',), 'should keep content when no matches', 'removeDuplicateSuffixLines', 'eq', '', None, 'function process() {\n  ║\n  console.log("done");          \n}', 'console.log("processing");', '', 'console.log("processing");', ''),
    Unit(('1.9.0-dev',), 'dropDuplicated.test.ts', ('e61d780ca',), 'should drop completion duplicated with suffix', 'dropDuplicated', 'eq', 'javascript', None, '\nlet sum = (a, b) => {\n  ║return a + b;\n};', 'return a + b;', '', None, ''),
    Unit(('1.9.0-dev',), 'dropDuplicated.test.ts', ('e61d780ca',), 'should drop completion similar to suffix', 'dropDuplicated', 'eq', 'javascript', None, '\nlet sum = (a, b) => {\n  return a + b;\n  ║\n};', '}', '', None, ''),
    Unit(('1.9.0-dev',), 'dropMinimum.test.ts', ('e61d780ca',), 'should return null if input is < 4 non-whitespace characters', 'dropMinimum', 'eq', 'dummy║', None, '\n', '\n', '', None, ''),
    Unit(('1.9.0-dev',), 'dropMinimum.test.ts', ('e61d780ca',), 'should return null if input is < 4 non-whitespace characters', 'dropMinimum', 'eq', 'dummy║', None, '\n', '\t\n', '', None, ''),
    Unit(('1.9.0-dev',), 'dropMinimum.test.ts', ('e61d780ca',), 'should return null if input is < 4 non-whitespace characters', 'dropMinimum', 'eq', 'dummy║', None, '\n', 'ab\t\n', '', None, ''),
    Unit(('1.9.0-dev',), 'dropMinimum.test.ts', ('e61d780ca',), 'should keep unchanged if input is >= 4 non-whitespace characters', 'dropMinimum', 'eq', 'dummy║', None, '\n', 'Greater than 4', '', 'Greater than 4', ''),
    Unit(('1.9.0-dev',), 'formatIndentation.test.ts', ('e61d780ca',), 'should format indentation if first line of completion is over indented.', 'formatIndentation', 'eq', 'typescript', '  ', '\nfunction clamp(n: number, max: number, min: number): number {\n  ║\n}', '  return Math.max(Math.min(n, max), min);', '', 'return Math.max(Math.min(n, max), min);', ''),
    Unit(('1.9.0-dev',), 'formatIndentation.test.ts', ('e61d780ca',), 'should format indentation if first line of completion is wrongly indented.', 'formatIndentation', 'eq', 'typescript', '    ', '\nfunction clamp(n: number, max: number, min: number): number {\n║\n}', '  return Math.max(Math.min(n, max), min);', '', '    return Math.max(Math.min(n, max), min);', ''),
    Unit(('1.9.0-dev',), 'formatIndentation.test.ts', ('e61d780ca',), 'should format indentation if completion lines is over indented.', 'formatIndentation', 'eq', 'python', '  ', '\ndef findMax(arr):║', '\n    max = arr[0]\n    for i in range(1, len(arr)):\n        if arr[i] > max:\n            max = arr[i]\n    return max\n}', '', '\n  max = arr[0]\n  for i in range(1, len(arr)):\n    if arr[i] > max:\n      max = arr[i]\n  return max\n}', ''),
    Unit(('1.9.0-dev',), 'formatIndentation.test.ts', ('e61d780ca',), 'should format indentation if completion lines is wrongly indented.', 'formatIndentation', 'eq', 'python', '    ', '\ndef findMax(arr):║', '\n  max = arr[0]\n  for i in range(1, len(arr)):\n    if arr[i] > max:\n      max = arr[i]\n  return max\n}', '', '\n    max = arr[0]\n    for i in range(1, len(arr)):\n        if arr[i] > max:\n            max = arr[i]\n    return max\n}', ''),
    Unit(('1.9.0-dev',), 'formatIndentation.test.ts', ('e61d780ca',), 'should keep it unchanged if it no indentation specified.', 'formatIndentation', 'eq', 'python', None, '\ndef findMax(arr):║', '\n    max = arr[0]\n    for i in range(1, len(arr)):\n        if arr[i] > max:\n            max = arr[i]\n    return max\n}', '', '\n    max = arr[0]\n    for i in range(1, len(arr)):\n        if arr[i] > max:\n            max = arr[i]\n    return max\n}', ''),
    Unit(('1.9.0-dev',), 'formatIndentation.test.ts', ('e61d780ca',), 'should keep it unchanged if there is indentation in the context.', 'formatIndentation', 'eq', 'python', '\t', '\ndef hello():\n    return "world"\n\ndef findMax(arr):║', '\n    max = arr[0]\n    for i in range(1, len(arr)):\n        if arr[i] > max:\n            max = arr[i]\n    return max\n}', '', '\n    max = arr[0]\n    for i in range(1, len(arr)):\n        if arr[i] > max:\n            max = arr[i]\n    return max\n}', ''),
    Unit(('1.9.0-dev',), 'formatIndentation.test.ts', ('e61d780ca',), 'should keep it unchanged if it is well indented.', 'formatIndentation', 'eq', 'python', '    ', '\ndef findMax(arr):║', '\n    max = arr[0]\n    for i in range(1, len(arr)):\n        if arr[i] > max:\n            max = arr[i]\n    return max\n}', '', '\n    max = arr[0]\n    for i in range(1, len(arr)):\n        if arr[i] > max:\n            max = arr[i]\n    return max\n}', ''),
    Unit(('1.9.0-dev',), 'limitScopeByIndentation.test.ts', ('e61d780ca',), 'should limit scope at sentence end, when completion is continuing uncompleted sentence in the prefix.', 'limitScopeByIndentation', 'eq', 'javascript', None, '\nlet a =║', ' 1;\nlet b = 2;', '', ' 1;', ''),
    Unit(('1.9.0-dev',), 'limitScopeByIndentation.test.ts', ('e61d780ca',), 'should limit scope at sentence end, when completion is continuing uncompleted sentence in the prefix.', 'limitScopeByIndentation', 'eq', 'javascript', None, '\nfunction safeParse(json) {\n  try {\n    console.log║\n  } catch (error) {\n    console.error(error);\n    return null;\n  }\n}', '("Parsing", { json });\n    return JSON.parse(json);\n  } catch (e) {\n    return null;\n  }\n}', '', '("Parsing", { json });', ''),
    Unit(('1.9.0-dev',), 'limitScopeByIndentation.test.ts', ('e61d780ca',), 'should limit scope at next indent level, including closing line, when completion is starting a new indent level in next line.', 'limitScopeByIndentation', 'eq', 'javascript', None, '\nfunction findMax(arr) {║}', '\n  let max = arr[0];\n  for (let i = 1; i < arr.length; i++) {\n    if (arr[i] > max) {\n      max = arr[i];\n    }\n  }\n  return max;\n}\nconsole.log(findMax([1, 2, 3, 4, 5]));', '', '\n  let max = arr[0];\n  for (let i = 1; i < arr.length; i++) {\n    if (arr[i] > max) {\n      max = arr[i];\n    }\n  }\n  return max;\n}', ''),
    Unit(('1.9.0-dev',), 'limitScopeByIndentation.test.ts', ('e61d780ca',), 'should limit scope at next indent level, including closing line, when completion is continuing uncompleted sentence in the prefix, and starting a new indent level in next line.', 'limitScopeByIndentation', 'eq', 'javascript', None, '\nfunction findMax(arr) {\n  let max = arr[0];\n  for║\n}', ' (let i = 1; i < arr.length; i++) {\n    if (arr[i] > max) {\n      max = arr[i];\n    }\n  }\n  return max;\n}\nconsole.log(findMax([1, 2, 3, 4, 5]));', '', ' (let i = 1; i < arr.length; i++) {\n    if (arr[i] > max) {\n      max = arr[i];\n    }\n  }', ''),
    Unit(('1.9.0-dev',), 'limitScopeByIndentation.test.ts', ('e61d780ca',), 'should limit scope at current indent level, including closing line, when completion starts new sentences at same indent level.', 'limitScopeByIndentation', 'eq', 'javascript', None, '\nfunction findMax(arr) {\n  let max = arr[0];║\n}', '\n  for (let i = 1; i < arr.length; i++) {\n    if (arr[i] > max) {\n      max = arr[i];\n    }\n  }\n  return max;\n}', '', '\n  for (let i = 1; i < arr.length; i++) {\n    if (arr[i] > max) {\n      max = arr[i];\n    }\n  }\n  return max;\n}', ''),
    Unit(('1.9.0-dev',), 'limitScopeByIndentation.test.ts', ('e61d780ca',), 'should allow only one level closing bracket', 'limitScopeByIndentation', 'eq', 'javascript', None, '\nfunction safeParse(json) {\n  try {\n    return JSON.parse(json);\n  } catch (e) {\n    return null;║', '\n  }\n}', '', '\n  }', ''),
    Unit(('1.9.0-dev',), 'limitScopeByIndentation.test.ts', ('e61d780ca',), 'should allow level closing bracket at current line, it looks same as starts new sentences', 'limitScopeByIndentation', 'eq', 'javascript', None, '\nfunction helloworld() {\n  console.log("hello");\n  ║', '}', '', '}', ''),
    Unit(('1.9.0-dev',), 'limitScopeByIndentation.test.ts', ('e61d780ca',), 'should not allow level closing bracket, when the suffix lines have same indent level', 'limitScopeByIndentation', 'eq', 'javascript', None, '\nfunction helloworld() {\n  console.log("hello");║\n  console.log("world");\n}', '\n}', '', '', ''),
    Unit(('1.9.0-dev',), 'limitScopeByIndentation.test.ts', ('e61d780ca',), 'should use indent level of previous line, when current line is empty.', 'limitScopeByIndentation', 'eq', 'javascript', None, '\nfunction safeParse(json) {\n  try {\n    ║\n  }\n}', 'return JSON.parse(json);\n  } catch (e) {\n    return null;\n  }\n}', '', 'return JSON.parse(json);\n  } catch (e) {\n    return null;\n  }', ''),
    Unit(('1.9.0-dev',), 'limitScopeByIndentation.test.ts', ('e61d780ca',), "cannot handle the case of indent that does'nt have a close line, e.g. chaining call", 'limitScopeByIndentation', 'not', 'javascript', None, '\nfunction sortWords(input) {\n  const output = input.trim()\n    .split("\n")\n    .map((line) => line.split(" "))\n    ║\n}', '.flat()\n    .sort()\n    .join(" ");\n  console.log(output);\n  return output;\n}\nsortWords("world hello");', '', '.flat()\n    .sort()\n    .join(" ");\n  console.log(output);\n  return output;\n}', ''),
    Unit(('1.9.0-dev',), 'limitScopeByIndentation.test.ts', ('e61d780ca',), "cannot handle the case of indent that does'nt have a close line, e.g. python def function", 'limitScopeByIndentation', 'not', 'python', None, '\ndef findMax(arr):\n  ║', 'max = arr[0]\n  for i in range(1, len(arr)):\n    if arr[i] > max:\n      max = arr[i]\n  return max\nfindMax([1, 2, 3, 4, 5])', '', 'max = arr[0]\nfor i in range(1, len(arr)):\n  if arr[i] > max:\n    max = arr[i]\nreturn max', ''),
    Unit(('1.9.0-dev',), 'normalizeIndentation.test.ts', ('e61d780ca',), 'should fix first line extra indentation', 'normalizeIndentation', 'eq', 'function test() {', None, '\n  ║\n}', ' const x = 1;\nconst y = 2;', '', 'const x = 1;\nconst y = 2;', ''),
    Unit(('1.9.0-dev',), 'normalizeIndentation.test.ts', ('e61d780ca',), 'should remove extra indent', 'normalizeIndentation', 'eq', 'if (true) {', None, '\n  if (condition) {\n    ║\n  }\n}', 'doSomething();\n doAnother();', '', 'doSomething();\ndoAnother();', ''),
    Unit(('1.9.0-dev',), 'normalizeIndentation.test.ts', ('e61d780ca',), 'should handle both inappropriate first line and extra indent case 01', 'normalizeIndentation', 'eq', 'if (true) {', None, '\n  if (condition) {\n    ║\n  }\n}', ' doSomething();\n doAnother();', '', 'doSomething();\ndoAnother();', ''),
    Unit(('1.9.0-dev',), 'normalizeIndentation.test.ts', ('e61d780ca',), 'should handle both inappropriate extra indent case 02', 'normalizeIndentation', 'eq', '{', None, '\n  "command": "test",\n  ║\n}', '"title": "Run Test",\n "category": "Tabby"', '', '"title": "Run Test",\n"category": "Tabby"', ''),
    Unit(('1.9.0-dev',), 'normalizeIndentation.test.ts', ('e61d780ca',), 'should do nothing', 'normalizeIndentation', 'eq', 'function foo() {', None, '\n║\n}', '    bar();', '', '    bar();', ''),
    Unit(('1.9.0-dev',), 'normalizeIndentation.test.ts', ('e61d780ca',), 'should fix extra indent', 'normalizeIndentation', 'eq', '{', None, '\n ║\n}', '"command": "tabby.inlineCompletion.trigger.automatic",\n "title":  "Trigger Code Completion Automatically",\n "category": "Tabby"', '', '"command": "tabby.inlineCompletion.trigger.automatic",\n"title":  "Trigger Code Completion Automatically",\n"category": "Tabby"', ''),
    Unit(('1.9.0-dev',), 'normalizeIndentation.test.ts', ('e61d780ca',), "shouldn't change indent", 'normalizeIndentation', 'eq', '{', None, '\n  "command": "tabby.toggleInlineCompletionTriggerMode",\n  "title": "Toggle Code Completion Trigger Mode (Automatic/Manual)",\n  "category": "Tabby"\n},\n║', '{\n  "command": "tabby.inlineCompletion.trigger",\n  "title": "Trigger Code Completion Manually",\n  "category": "Tabby"\n},', '', '{\n  "command": "tabby.inlineCompletion.trigger",\n  "title": "Trigger Code Completion Manually",\n  "category": "Tabby"\n},', ''),
    Unit(('1.9.0-dev',), 'removeDuplicateSuffixLines.test.ts', ('e61d780ca',), 'should remove duplicated array item', 'removeDuplicateSuffixLines', 'eq', 'const items = [', None, '\n  ║\n  { id: 2 },\n  { id: 3 }\n];', '{ id: 1 },\n{ id: 2 },', '', '{ id: 1 },', ''),
    Unit(('1.9.0-dev',), 'removeDuplicateSuffixLines.test.ts', ('e61d780ca',), 'should handle empty content after cursor', 'removeDuplicateSuffixLines', 'eq', 'const a = ║', None, '\n', '42;', '', '42;', ''),
    Unit(('1.9.0-dev',), 'removeDuplicateSuffixLines.test.ts', ('e61d780ca',), 'should remove duplicated comma items', 'removeDuplicateSuffixLines', 'eq', 'function example() {', None, '\n  const items = [\n    ║\n    4,\n    5,\n    6\n  ];\n}', '1,\n2,\n3,\n4,', '', '1,\n2,\n3,', ''),
    Unit(('1.9.0-dev',), 'removeDuplicateSuffixLines.test.ts', ('e61d780ca',), 'should remove duplicate method calls', 'removeDuplicateSuffixLines', 'eq', 'class Example {', None, '\n  constructor() {\n    ║\n    this.setup();\n    this.init()\n  }\n}', 'this.value = 1;\nthis.name = "test";\nthis.items = [];\nthis.setup();', '', 'this.value = 1;\nthis.name = "test";\nthis.items = [];', ''),
    Unit(('1.9.0-dev',), 'removeDuplicateSuffixLines.test.ts', ('e61d780ca',), 'should remove duplicate object properties', 'removeDuplicateSuffixLines', 'eq', 'const config = {', None, '\n  ║\n  enabled: true,\n  debug: false          \n};', 'name: "test",\nvalue: 42,\nitems: [],\nenabled: true,', '', 'name: "test",\nvalue: 42,\nitems: [],', ''),
    Unit(('1.9.0-dev',), 'removeDuplicateSuffixLines.test.ts', ('e61d780ca',), 'should keep content when no matches', 'removeDuplicateSuffixLines', 'eq', 'function process() {', None, '\n  ║\n  console.log("done");          \n}', 'console.log("processing");', '', 'console.log("processing");', ''),
    Unit(('1.9.0-dev',), 'removeDuplicatedBlockClosingLine.test.ts', ('e61d780ca',), 'should remove duplicated block closing line.', 'removeDuplicatedBlockClosingLine', 'eq', 'javascript', None, '\nfunction hello() {\n  ║\n}', 'console.log("hello");\n}', '', 'console.log("hello");', ''),
    Unit(('1.9.0-dev',), 'removeDuplicatedBlockClosingLine.test.ts', ('e61d780ca',), 'should remove duplicated block closing line.', 'removeDuplicatedBlockClosingLine', 'eq', 'javascript', None, '\nfunction check(condition) {\n  if (!condition) {\n    ║\n  } else {\n    return;\n  }\n}', 'throw new Error("check not passed");\n  }', '', 'throw new Error("check not passed");', ''),
    Unit(('1.9.0-dev',), 'removeDuplicatedBlockClosingLine.test.ts', ('e61d780ca',), 'should not remove non-duplicated block closing line.', 'removeDuplicatedBlockClosingLine', 'eq', 'javascript', None, '\nfunction check(condition) {\n  if (!condition) {\n    ║\n}', 'throw new Error("check not passed");\n  }', '', 'throw new Error("check not passed");\n  }', ''),
    Unit(('1.9.0-dev',), 'removeLineEndsWithRepetition.test.ts', ('e61d780ca',), 'should drop one line completion ends with repetition', 'removeLineEndsWithRepetition', 'eq', 'javascript', None, '\nlet foo = ║', 'foo = foo = foo = foo = foo = foo = foo =', '', None, ''),
    Unit(('1.9.0-dev',), 'removeLineEndsWithRepetition.test.ts', ('e61d780ca',), 'should remove last line that ends with repetition', 'removeLineEndsWithRepetition', 'eq', 'javascript', None, '\nlet largeNumber = 1000000\nlet veryLargeNumber = ║', '1000000000\nlet superLargeNumber = 1000000000000000000000000000000000000000000000', '', '1000000000', ''),
    Unit(('1.9.0-dev',), 'removeLineEndsWithRepetition.test.ts', ('e61d780ca',), 'should keep repetition less than threshold', 'removeLineEndsWithRepetition', 'eq', 'javascript', None, '\nlet largeNumber = 1000000\nlet veryLargeNumber = ║', '1000000000000', '', '1000000000000', ''),
    Unit(('1.9.0-dev',), 'removeRepetitiveBlocks.test.ts', ('e61d780ca',), 'should remove repetitive blocks', 'removeRepetitiveBlocks', 'eq', 'javascript', None, '\nfunction myFuncA() {\n  console.log("myFuncA called.");\n}\n\n║', 'function myFuncB() {\n  console.log("myFuncB called.");\n}\n\nfunction myFuncC() {\n  console.log("myFuncC called.");\n}\n\nfunction myFuncD() {\n  console.log("myFuncD called.");\n}\n\nfunction myFuncE() {\n  console.log("myFuncE called.");\n}\n\nfunction myFuncF() {\n  console.log("myFuncF called.");\n}\n\nfunction myFuncG() {\n  console.log("myFuncG called.");\n}\n\nfunction myFuncH() {\n  console.log("myFuncH ', '', 'function myFuncB() {\n  console.log("myFuncB called.");\n}', ''),
    Unit(('1.9.0-dev',), 'removeRepetitiveLines.test.ts', ('e61d780ca',), 'should remove repetitive lines', 'removeRepetitiveLines', 'eq', 'javascript', None, '\nfunction hello() {\n  console.log("hello");\n}\nhello();\nhello();\n║', 'hello();\nhello();\nhello();\nhello();\nhello();\nhello();\nhello();\nhello();\nhello();\nhello();', '', 'hello();', ''),
    Unit(('1.9.0-dev',), 'removeRepetitiveLines.test.ts', ('e61d780ca',), 'should remove repetitive lines with patterns', 'removeRepetitiveLines', 'eq', 'javascript', None, '\nconst a = 1;\n║', 'const b = 1;\nconst c = 1;\nconst d = 1;\nconst e = 1;\nconst f = 1;\nconst g = 1;\nconst h = 1;\nconst i = 1;\nconst j = 1;\nconst k =', '', 'const b = 1;', ''),
    Unit(('1.9.0-dev',), 'trimMultiLineInSingleLineMode.test.ts', ('e61d780ca',), 'should trim multiline completions, when the suffix have non-auto-closed chars in the current line.', 'trimMultiLineInSingleLineMode', 'eq', 'javascript', None, '\nlet error = new Error("Something went wrong");\nconsole.log(║message);', 'message);\nthrow error;', '', None, ''),
    Unit(('1.9.0-dev',), 'trimMultiLineInSingleLineMode.test.ts', ('e61d780ca',), 'should trim multiline completions, when the suffix have non-auto-closed chars in the current line.', 'trimMultiLineInSingleLineMode', 'eq', 'javascript', None, '\nlet error = new Error("Something went wrong");\nconsole.log(║message);', 'error, message);\nthrow error;', '', 'error, ', ''),
    Unit(('1.9.0-dev',), 'trimMultiLineInSingleLineMode.test.ts', ('e61d780ca',), 'should allow singleline completions, when the suffix have non-auto-closed chars in the current line.', 'trimMultiLineInSingleLineMode', 'eq', 'javascript', None, '\nlet error = new Error("Something went wrong");\nconsole.log(║message);', 'error, ', '', 'error, ', ''),
    Unit(('1.9.0-dev',), 'trimMultiLineInSingleLineMode.test.ts', ('e61d780ca',), 'should allow multiline completions, when the suffix only have auto-closed chars that will be replaced in the current line, such as `)]}`.', 'trimMultiLineInSingleLineMode', 'eq', 'javascript', None, '\nfunction findMax(arr) {║}', '\n  let max = arr[0];\n  for (let i = 1; i < arr.length; i++) {\n    if (arr[i] > max) {\n      max = arr[i];\n    }\n  }\n  return max;\n}', '', '\n  let max = arr[0];\n  for (let i = 1; i < arr.length; i++) {\n    if (arr[i] > max) {\n      max = arr[i];\n    }\n  }\n  return max;\n}', ''),
    Unit(('1.9.0-dev',), 'trimSpace.test.ts', ('e61d780ca',), 'should remove trailing space', 'trimSpace', 'eq', 'javascript', None, '\nlet foo = new ║', 'Foo(); ', '', 'Foo();', ''),
    Unit(('1.9.0-dev',), 'trimSpace.test.ts', ('e61d780ca',), 'should not remove trailing space if filling in line', 'trimSpace', 'eq', 'javascript', None, '\nlet foo = sum(║baz)', 'bar, ', '', 'bar, ', ''),
    Unit(('1.9.0-dev',), 'trimSpace.test.ts', ('e61d780ca',), 'should remove trailing space if filling in line with suffix starts with space', 'trimSpace', 'eq', 'javascript', None, '\nlet foo = sum(║ baz)', 'bar, ', '', 'bar,', ''),
    Unit(('1.9.0-dev',), 'trimSpace.test.ts', ('e61d780ca',), 'should not remove leading space if current line is blank', 'trimSpace', 'eq', 'javascript', None, '\nfunction sum(a, b) {\n║\n}', '  return a + b;', '', '  return a + b;', ''),
    Unit(('1.9.0-dev',), 'trimSpace.test.ts', ('e61d780ca',), 'should remove leading space if current line is not blank and ends with space', 'trimSpace', 'eq', 'javascript', None, '\nlet foo = ║', ' sum(bar, baz);', '', 'sum(bar, baz);', ''),
]


GOLDENS: list[Golden] = [
    # clients/tabby-agent/src/.../postprocess/golden/**/*.toml at b75f12e5f (tabby-agent 1.3.0)
    Golden('1.3.0', 'golden/basic_fibonacci_test/python.toml', 'Basic python function fibonacci', 'python', {}, 'unchanged', False, 'def fibonacci(n):\n    ├if n == 0 or n == 1:\n        return n┤\n    return fibonacci(n - 1) + fibonacci(n - 2)\n', None),
    Golden('1.3.0', 'golden/basic_fibonacci_test/rust.toml', 'Basic rust function fibonacci', 'rust', {}, 'text', False, 'fn fibonacci(├n: u32) -> u32 {\n    if n == 0 {\n        0\n    } else if n == 1 {\n        1\n    } else {\n        fibonacci(n - 1) + fibonacci(n - 2)\n    }\n}┤)\n', 'fn fibonacci(├n: u32) -> u32 {\n    if n == 0 {\n        0\n    } else if n == 1 {\n        1\n    } else {\n        fibonacci(n - 1) + fibonacci(n - 2)\n    }\n}┤)╣\n'),
    Golden('1.3.0', 'golden/basic_fibonacci_test/typescript.toml', 'Basic typescript function fibonacci', 'typescript', {}, 'text', False, 'function fibonacci(n:├ number): number {\n  if (n <= 1) {\n    return n;\n  }\n  return fibonacci(n - 1) + fibonacci(n - 2);\n}┤)\n', 'function fibonacci(n:├ number): number {\n  if (n <= 1) {\n    return n;\n  }\n  return fibonacci(n - 1) + fibonacci(n - 2);\n}┤)╣\n'),
    Golden('1.3.0', 'golden/limit_scope/basic.toml', 'Limit scope: keep unchanged', 'typescript', {}, 'unchanged', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    ├this._foo = value;\n    return this;┤\n  }\n}\n', None),
    Golden('1.3.0', 'golden/limit_scope/experimental_block_01.toml', 'Limit scope experimental: limit to block when completing a line: case 01', 'typescript', {'postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine': True}, 'unchanged', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    this._foo =├ value;\n    return this;┤\n  }\n}\n', None),
    Golden('1.3.0', 'golden/limit_scope/experimental_block_02.toml', 'Limit scope experimental: limit to block when completing a line: case 02', 'javascript', {'postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine': True}, 'unchanged', False, 'function check(obj) {\n  // if obj.a is defined, then return t├rue\n  if (obj.a) {\n    return true;\n  }┤\n  return false;\n}\n', None),
    Golden('1.3.0', 'golden/limit_scope/experimental_syntax_rust_01.toml', 'Limit scope experimental: syntax rust: case 01', 'rust', {'postprocess.limitScope.experimentalSyntax': True}, 'text', False, 'pub struct StopCondition {\n    stop_re: Option<Regex>,\n    max_decoding_length: ├usize,\n    max_decoding_time: Duration,\n}┤\n}\n', 'pub struct StopCondition {\n    stop_re: Option<Regex>,\n    max_decoding_length: ├usize,\n    max_decoding_time: Duration,┤\n}\n'),
    Golden('1.3.0', 'golden/limit_scope/experimental_syntax_rust_02.toml', 'Limit scope experimental: syntax rust: case 02', 'rust', {'postprocess.limitScope.experimentalSyntax': True}, 'text', False, 'fn add(x: i32, y: i32) -> i32 {\n    println!("x:├ {}", x);\n    println!("y: {}", y);\n    println!("x + y: {}┤", x);\n    return x + y;\n}\n', 'fn add(x: i32, y: i32) -> i32 {\n    println!("x:├ {}┤", x);\n    return x + y;\n}\n'),
    Golden('1.3.0', 'golden/limit_scope/experimental_syntax_typescript_01.toml', 'Limit scope experimental: syntax typescript: case 01', 'typescript', {'postprocess.limitScope.experimentalSyntax': True}, 'unchanged', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    ├this._foo = value;\n    return this;┤\n  }\n\n  get foo(): number {\n    return this._foo;\n  }\n}\n', None),
    Golden('1.3.0', 'golden/limit_scope/fill_in_line_01.toml', 'Limit scope: fill in line: case 01', 'javascript', {}, 'unchanged', False, 'function assert(condition, message) {\n  if (!condition) {\n    throw new Error(message);\n  }\n}\n\nvar a = 0;\nvar b = 1;\nassert(├a === b┤, "a is not equal to b");\n\n', None),
    Golden('1.3.0', 'golden/limit_scope/to_block_01.toml', 'Limit scope: limit to block scope: case 01', 'typescript', {}, 'text', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  get├ foo(): number {\n    return this._foo;\n  }\n\n  set foo(value: number) {\n    this._foo = value;\n  }┤\n}\n', 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  get├ foo(): number {\n    return this._foo;\n  }┤\n}\n'),
    Golden('1.3.0', 'golden/limit_scope/to_block_02.toml', 'Limit scope: limit to block scope: case 02', 'typescript', {}, 'text', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  get foo(): number├ {\n    return this._foo;\n  }\n\n  set foo(value: number) {\n    this._foo = value;\n  }┤\n}\n', 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  get foo(): number├ {\n    return this._foo;\n  }┤\n}\n'),
    Golden('1.3.0', 'golden/limit_scope/to_block_03.toml', 'Limit scope: limit to block scope: case 03', 'javascript', {}, 'text', False, 'function check(obj) {\n  // if obj.a is defined, then return t├rue\n  if (obj.a) {\n    return true;\n  }┤\n  return false;\n}\n', 'function check(obj) {\n  // if obj.a is defined, then return t├rue┤\n  return false;\n}\n'),
    Golden('1.3.0', 'golden/limit_scope/to_line_01.toml', 'Limit scope: limit to single line when completing a line: case 01', 'typescript', {}, 'text', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    this._foo =├ value;\n    return this;┤\n  }\n}\n', 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    this._foo =├ value;┤\n  }\n}\n'),
    Golden('1.3.0', 'golden/remove_duplication/basic.toml', 'Remove duplication: keep unchanged', 'javascript', {}, 'discard', False, 'function print(obj) {\n  ├console.log(obj);┤\n  console.log(obj);\n}\n', None),
    Golden('1.3.0', 'golden/remove_duplication/similar_lines_01.toml', 'Remove duplication: similar lines: bad case 01', 'javascript', {}, 'unchanged', True, 'function check(obj) {\n  if (obj.a) {\n    return true;\n  ├}┤\n}\n', None),
    Golden('1.3.0', 'golden/remove_duplication/similar_lines_02.toml', 'Remove duplication: similar lines: bad case 01', 'typescript', {}, 'unchanged', True, 'import { expect } from "chai";\nimport { fibonacci } from "./fibonacci";\n\ndescribe("tests: fibonacci", () => {\n  it("test case 1", () => {\n    const input = 0;\n    const expected = 1;\n    expect(fibonacci(input)).to.be.eq(expected);\n  });\n\n  ├it("test case 2", () => {\n    const input = 1;\n    const expected = 1;\n    expect(fibonacci(input)).to.be.eq(expected);\n  });┤\n  \n  it("test case 3", () => {\n    const input = 2;\n    const expected = 2;\n    expect(fibonacci(input)).to.be.eq(expected);\n  });\n});\n\n', None),
    Golden('1.3.0', 'golden/replace_range/basic.toml', 'Replace range: basic', 'javascript', {}, 'text', False, "function printHello(├) {\n  console.log('Hello');\n}┤)\n", "function printHello(├) {\n  console.log('Hello');\n}┤)╣\n"),
    Golden('1.3.0', 'golden/replace_range/experimental_syntax_javascript_01.toml', 'Replace range experimental: syntax javascript: bad case 01', 'javascript', {'postprocess.limitScope.experimentalSyntax': True, 'postprocess.calculateReplaceRange.experimentalSyntax': True}, 'text', True, "const stream = process.stdin;\n// just print data string\nstream.on('data', (data) => {├\n  console.log(data.toString());\n});┤})\n", "const stream = process.stdin;\n// just print data string\nstream.on('data', (data) => {├\n  console.log(data.toString());\n});┤})╣\n"),
    Golden('1.3.0', 'golden/replace_range/experimental_syntax_mismatched_01.toml', 'Replace range experimental: syntax mismatched: case 01', 'typescript', {'postprocess.limitScope.experimentalSyntax': True, 'postprocess.calculateReplaceRange.experimentalSyntax': True}, 'text', False, 'def fibonacci(├n):\n  if n == 0:\n    return 0\n  elif n == 1:\n    return 1\n  else:\n    return fibonacci(n - 1) + fibonacci(n - 2)┤)\n', 'def fibonacci(├n):\n  if n == 0:\n    return 0\n  elif n == 1:\n    return 1\n  else:\n    return fibonacci(n - 1) + fibonacci(n - 2)┤)╣\n'),
    Golden('1.3.0', 'golden/replace_range/multiple_01.toml', 'Replace range: multiple closing brackets: case 01', 'javascript', {}, 'text', False, "const stream = process.stdin;\n// just print data string\nstream.on('data', (data) => {├\n  console.log(data.toString());\n});┤})\n", "const stream = process.stdin;\n// just print data string\nstream.on('data', (data) => {├\n  console.log(data.toString());\n});┤})╣\n"),
    Golden('1.3.0', 'golden/replace_range/multiple_02.toml', 'Replace range: multiple closing brackets: case 02', 'typescript', {}, 'text', False, 'function clamp(value: number, min: number, max: number): number {\n  return Math.max(Math.min(├value, max), min);┤))\n}\n', 'function clamp(value: number, min: number, max: number): number {\n  return Math.max(Math.min(├value, max), min);┤))╣\n}\n'),
    # clients/tabby-agent/src/.../postprocess/golden/**/*.toml at eb7ce024e (tabby-agent 1.3.1)
    Golden('1.3.1', 'golden/basic_fibonacci_test/python.toml', 'Basic python function fibonacci', 'python', {}, 'unchanged', False, 'def fibonacci(n):\n    ├if n == 0 or n == 1:\n        return n┤\n    return fibonacci(n - 1) + fibonacci(n - 2)\n', None),
    Golden('1.3.1', 'golden/basic_fibonacci_test/rust.toml', 'Basic rust function fibonacci', 'rust', {}, 'text', False, 'fn fibonacci(├n: u32) -> u32 {\n    if n == 0 {\n        0\n    } else if n == 1 {\n        1\n    } else {\n        fibonacci(n - 1) + fibonacci(n - 2)\n    }\n}┤)\n', 'fn fibonacci(├n: u32) -> u32 {\n    if n == 0 {\n        0\n    } else if n == 1 {\n        1\n    } else {\n        fibonacci(n - 1) + fibonacci(n - 2)\n    }\n}┤)╣\n'),
    Golden('1.3.1', 'golden/basic_fibonacci_test/typescript.toml', 'Basic typescript function fibonacci', 'typescript', {}, 'text', False, 'function fibonacci(n:├ number): number {\n  if (n <= 1) {\n    return n;\n  }\n  return fibonacci(n - 1) + fibonacci(n - 2);\n}┤)\n', 'function fibonacci(n:├ number): number {\n  if (n <= 1) {\n    return n;\n  }\n  return fibonacci(n - 1) + fibonacci(n - 2);\n}┤)╣\n'),
    Golden('1.3.1', 'golden/limit_scope/basic.toml', 'Limit scope: keep unchanged', 'typescript', {}, 'unchanged', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    ├this._foo = value;\n    return this;┤\n  }\n}\n', None),
    Golden('1.3.1', 'golden/limit_scope/experimental_block_01.toml', 'Limit scope experimental: limit to block when completing a line: case 01', 'typescript', {'postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine': True}, 'unchanged', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    this._foo =├ value;\n    return this;┤\n  }\n}\n', None),
    Golden('1.3.1', 'golden/limit_scope/experimental_block_02.toml', 'Limit scope experimental: limit to block when completing a line: case 02', 'javascript', {'postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine': True}, 'unchanged', False, 'function check(obj) {\n  // if obj.a is defined, then return t├rue\n  if (obj.a) {\n    return true;\n  }┤\n  return false;\n}\n', None),
    Golden('1.3.1', 'golden/limit_scope/experimental_syntax_rust_01.toml', 'Limit scope experimental: syntax rust: case 01', 'rust', {'postprocess.limitScope.experimentalSyntax': True}, 'text', False, 'pub struct StopCondition {\n    stop_re: Option<Regex>,\n    max_decoding_length: ├usize,\n    max_decoding_time: Duration,\n}┤\n}\n', 'pub struct StopCondition {\n    stop_re: Option<Regex>,\n    max_decoding_length: ├usize,\n    max_decoding_time: Duration,┤\n}\n'),
    Golden('1.3.1', 'golden/limit_scope/experimental_syntax_rust_02.toml', 'Limit scope experimental: syntax rust: case 02', 'rust', {'postprocess.limitScope.experimentalSyntax': True}, 'text', False, 'fn add(x: i32, y: i32) -> i32 {\n    println!("x:├ {}", x);\n    println!("y: {}", y);\n    println!("x + y: {}┤", x);\n    return x + y;\n}\n', 'fn add(x: i32, y: i32) -> i32 {\n    println!("x:├ {}┤", x);\n    return x + y;\n}\n'),
    Golden('1.3.1', 'golden/limit_scope/experimental_syntax_typescript_01.toml', 'Limit scope experimental: syntax typescript: case 01', 'typescript', {'postprocess.limitScope.experimentalSyntax': True}, 'unchanged', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    ├this._foo = value;\n    return this;┤\n  }\n\n  get foo(): number {\n    return this._foo;\n  }\n}\n', None),
    Golden('1.3.1', 'golden/limit_scope/fill_in_line_01.toml', 'Limit scope: fill in line: case 01', 'javascript', {}, 'unchanged', False, 'function assert(condition, message) {\n  if (!condition) {\n    throw new Error(message);\n  }\n}\n\nvar a = 0;\nvar b = 1;\nassert(├a === b┤, "a is not equal to b");\n\n', None),
    Golden('1.3.1', 'golden/limit_scope/to_block_01.toml', 'Limit scope: limit to block scope: case 01', 'typescript', {}, 'text', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  get├ foo(): number {\n    return this._foo;\n  }\n\n  set foo(value: number) {\n    this._foo = value;\n  }┤\n}\n', 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  get├ foo(): number {\n    return this._foo;\n  }┤\n}\n'),
    Golden('1.3.1', 'golden/limit_scope/to_block_02.toml', 'Limit scope: limit to block scope: case 02', 'typescript', {}, 'text', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  get foo(): number├ {\n    return this._foo;\n  }\n\n  set foo(value: number) {\n    this._foo = value;\n  }┤\n}\n', 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  get foo(): number├ {\n    return this._foo;\n  }┤\n}\n'),
    Golden('1.3.1', 'golden/limit_scope/to_block_03.toml', 'Limit scope: limit to block scope: case 03', 'javascript', {'postprocess.limitScope.experimentalSyntax': False, 'postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine': False}, 'text', False, 'function check(obj) {\n  // if obj.a is defined, then return t├rue\n  if (obj.a) {\n    return true;\n  }┤\n  return false;\n}\n', 'function check(obj) {\n  // if obj.a is defined, then return t├rue┤\n  return false;\n}\n'),
    Golden('1.3.1', 'golden/limit_scope/to_line_01.toml', 'Limit scope: limit to single line when completing a line: case 01', 'typescript', {'postprocess.limitScope.experimentalSyntax': False, 'postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine': False}, 'text', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    this._foo =├ value;\n    return this;┤\n  }\n}\n', 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    this._foo =├ value;┤\n  }\n}\n'),
    Golden('1.3.1', 'golden/remove_duplication/basic.toml', 'Remove duplication: keep unchanged', 'javascript', {}, 'discard', False, 'function print(obj) {\n  ├console.log(obj);┤\n  console.log(obj);\n}\n', None),
    Golden('1.3.1', 'golden/remove_duplication/duplicated_block_closing_line_01.toml', 'Remove duplication: duplicated block closing line: case 01', 'javascript', {}, 'text', False, 'function log(obj) {├\n  console.log(obj);\n};┤\n}\n', 'function log(obj) {├\n  console.log(obj);┤\n}\n'),
    Golden('1.3.1', 'golden/remove_duplication/duplicated_line_suffix.toml', 'Remove duplication: dupicated line suffix', 'typescript', {}, 'text', True, 'const log = ({ ok }: { ok:├ boolean }) => { ┤ }) => {\n  console.log(ok);\n}\n', 'const log = ({ ok }: { ok:├ boolean┤ }) => {\n  console.log(ok);\n}\n'),
    Golden('1.3.1', 'golden/remove_duplication/similar_lines_01.toml', 'Remove duplication: similar lines: bad case 01', 'javascript', {}, 'unchanged', True, 'function check(obj) {\n  if (obj.a) {\n    return true;\n  ├}┤\n}\n', None),
    Golden('1.3.1', 'golden/remove_duplication/similar_lines_02.toml', 'Remove duplication: similar lines: bad case 01', 'typescript', {}, 'unchanged', True, 'import { expect } from "chai";\nimport { fibonacci } from "./fibonacci";\n\ndescribe("tests: fibonacci", () => {\n  it("test case 1", () => {\n    const input = 0;\n    const expected = 1;\n    expect(fibonacci(input)).to.be.eq(expected);\n  });\n\n  ├it("test case 2", () => {\n    const input = 1;\n    const expected = 1;\n    expect(fibonacci(input)).to.be.eq(expected);\n  });┤\n  \n  it("test case 3", () => {\n    const input = 2;\n    const expected = 2;\n    expect(fibonacci(input)).to.be.eq(expected);\n  });\n});\n\n', None),
    Golden('1.3.1', 'golden/replace_range/basic.toml', 'Replace range: basic', 'javascript', {}, 'text', False, "function printHello(├) {\n  console.log('Hello');\n}┤)\n", "function printHello(├) {\n  console.log('Hello');\n}┤)╣\n"),
    Golden('1.3.1', 'golden/replace_range/experimental_syntax_javascript_01.toml', 'Replace range experimental: syntax javascript: bad case 01', 'javascript', {'postprocess.limitScope.experimentalSyntax': True, 'postprocess.calculateReplaceRange.experimentalSyntax': True}, 'text', False, "const stream = process.stdin;\n// just print data string\nstream.on('data', (data) => {├\n  console.log(data.toString());\n});┤})\n", "const stream = process.stdin;\n// just print data string\nstream.on('data', (data) => {├\n  console.log(data.toString());\n});┤})╣\n"),
    Golden('1.3.1', 'golden/replace_range/experimental_syntax_mismatched_01.toml', 'Replace range experimental: syntax mismatched: case 01', 'typescript', {'postprocess.limitScope.experimentalSyntax': True, 'postprocess.calculateReplaceRange.experimentalSyntax': True}, 'text', False, 'def fibonacci(├n):\n  if n == 0:\n    return 0\n  elif n == 1:\n    return 1\n  else:\n    return fibonacci(n - 1) + fibonacci(n - 2)┤)\n', 'def fibonacci(├n):\n  if n == 0:\n    return 0\n  elif n == 1:\n    return 1\n  else:\n    return fibonacci(n - 1) + fibonacci(n - 2)┤)╣\n'),
    Golden('1.3.1', 'golden/replace_range/jsx_tags_01.toml', 'Replace range: jsx tags: case 01', 'javascriptreact', {}, 'text', False, "import React from 'react';\nimport ReactDOM from 'react-dom/client';\nimport './index.css';\nimport App from './App';\n\nconst root = ReactDOM.createRoot(document.getElementById('root'));\nconst message = <div>Hello world!</div>\nroot.render(\n  <React.StrictMode>\n    <App ├message={message} />┤/>\n  </React.StrictMode>\n);\n\n", "import React from 'react';\nimport ReactDOM from 'react-dom/client';\nimport './index.css';\nimport App from './App';\n\nconst root = ReactDOM.createRoot(document.getElementById('root'));\nconst message = <div>Hello world!</div>\nroot.render(\n  <React.StrictMode>\n    <App ├message={message} />┤/>╣\n  </React.StrictMode>\n);\n\n"),
    Golden('1.3.1', 'golden/replace_range/jsx_tags_02.toml', 'Replace range: jsx tags: case 02', 'javascriptreact', {}, 'text', False, "import React from 'react';\nimport ReactDOM from 'react-dom/client';\nimport './index.css';\nimport App from './App';\n\nconst root = ReactDOM.createRoot(document.getElementById('root'));\nconst message = <div>Hello world!</div>\nroot.render(\n  <React.StrictMode>\n    <App message={message} />\n  </├React.StrictMode>┤>\n);\n\n", "import React from 'react';\nimport ReactDOM from 'react-dom/client';\nimport './index.css';\nimport App from './App';\n\nconst root = ReactDOM.createRoot(document.getElementById('root'));\nconst message = <div>Hello world!</div>\nroot.render(\n  <React.StrictMode>\n    <App message={message} />\n  </├React.StrictMode>┤>╣\n);\n\n"),
    Golden('1.3.1', 'golden/replace_range/multiple_01.toml', 'Replace range: multiple closing brackets: case 01', 'javascript', {}, 'text', False, "const stream = process.stdin;\n// just print data string\nstream.on('data', (data) => {├\n  console.log(data.toString());\n});┤})\n", "const stream = process.stdin;\n// just print data string\nstream.on('data', (data) => {├\n  console.log(data.toString());\n});┤})╣\n"),
    Golden('1.3.1', 'golden/replace_range/multiple_02.toml', 'Replace range: multiple closing brackets: case 02', 'typescript', {}, 'text', False, 'function clamp(value: number, min: number, max: number): number {\n  return Math.max(Math.min(├value, max), min);┤))\n}\n', 'function clamp(value: number, min: number, max: number): number {\n  return Math.max(Math.min(├value, max), min);┤))╣\n}\n'),
    # clients/tabby-agent/src/.../postprocess/golden/**/*.toml at e71cef8a9 (tabby-agent 1.6.0)
    Golden('1.6.0', 'golden/basic_fibonacci_test/python.toml', 'Basic python function fibonacci', 'python', {}, 'unchanged', False, 'def fibonacci(n):\n    ├if n == 0 or n == 1:\n        return n┤\n    return fibonacci(n - 1) + fibonacci(n - 2)\n', None),
    Golden('1.6.0', 'golden/basic_fibonacci_test/rust.toml', 'Basic rust function fibonacci', 'rust', {}, 'text', False, 'fn fibonacci(├n: u32) -> u32 {\n    if n == 0 {\n        0\n    } else if n == 1 {\n        1\n    } else {\n        fibonacci(n - 1) + fibonacci(n - 2)\n    }\n}┤)\n', 'fn fibonacci(├n: u32) -> u32 {\n    if n == 0 {\n        0\n    } else if n == 1 {\n        1\n    } else {\n        fibonacci(n - 1) + fibonacci(n - 2)\n    }\n}┤)╣\n'),
    Golden('1.6.0', 'golden/basic_fibonacci_test/typescript.toml', 'Basic typescript function fibonacci', 'typescript', {}, 'text', False, 'function fibonacci(n:├ number): number {\n  if (n <= 1) {\n    return n;\n  }\n  return fibonacci(n - 1) + fibonacci(n - 2);\n}┤)\n', 'function fibonacci(n:├ number): number {\n  if (n <= 1) {\n    return n;\n  }\n  return fibonacci(n - 1) + fibonacci(n - 2);\n}┤)╣\n'),
    Golden('1.6.0', 'golden/limit_scope/basic.toml', 'Limit scope: keep unchanged', 'typescript', {}, 'unchanged', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    ├this._foo = value;\n    return this;┤\n  }\n}\n', None),
    Golden('1.6.0', 'golden/limit_scope/fill_in_line_01.toml', 'Limit scope: fill in line: case 01', 'javascript', {}, 'unchanged', False, 'function assert(condition, message) {\n  if (!condition) {\n    throw new Error(message);\n  }\n}\n\nvar a = 0;\nvar b = 1;\nassert(├a === b┤, "a is not equal to b");\n\n', None),
    Golden('1.6.0', 'golden/limit_scope/rust_01.toml', 'Limit scope: rust 01', 'rust', {}, 'text', True, 'pub struct StopCondition {\n    stop_re: Option<Regex>,\n    max_decoding_length: ├usize,\n    max_decoding_time: Duration,\n}┤\n}\n', 'pub struct StopCondition {\n    stop_re: Option<Regex>,\n    max_decoding_length: ├usize,\n    max_decoding_time: Duration,┤\n}\n'),
    Golden('1.6.0', 'golden/limit_scope/rust_02.toml', 'Limit scope: rust 02', 'rust', {}, 'text', False, 'fn add(x: i32, y: i32) -> i32 {\n    println!("x:├ {}", x);\n    println!("y: {}", y);\n    println!("x + y: {}┤", x);\n    return x + y;\n}\n', 'fn add(x: i32, y: i32) -> i32 {\n    println!("x:├ {}┤", x);\n    return x + y;\n}\n'),
    Golden('1.6.0', 'golden/limit_scope/to_block_01.toml', 'Limit scope: limit to block scope: case 01', 'typescript', {}, 'text', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  get├ foo(): number {\n    return this._foo;\n  }\n\n  set foo(value: number) {\n    this._foo = value;\n  }┤\n}\n', 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  get├ foo(): number {\n    return this._foo;\n  }┤\n}\n'),
    Golden('1.6.0', 'golden/limit_scope/to_block_02.toml', 'Limit scope: limit to block scope: case 02', 'typescript', {}, 'text', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  get foo(): number├ {\n    return this._foo;\n  }\n\n  set foo(value: number) {\n    this._foo = value;\n  }┤\n}\n', 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  get foo(): number├ {\n    return this._foo;\n  }┤\n}\n'),
    Golden('1.6.0', 'golden/limit_scope/to_block_03.toml', 'Limit scope: limit to block scope: case 03', 'javascript', {}, 'text', False, 'function check(obj) {\n  // if obj.a is defined, then return t├rue\n  if (obj.a) {\n    return true;\n  }┤\n  return false;\n}\n', 'function check(obj) {\n  // if obj.a is defined, then return t├rue┤\n  return false;\n}\n'),
    Golden('1.6.0', 'golden/limit_scope/to_line_01.toml', 'Limit scope: limit to single line when completing a line: case 01', 'typescript', {}, 'text', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    this._foo =├ value;\n    return this;┤\n  }\n}\n', 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    this._foo =├ value;┤\n  }\n}\n'),
    Golden('1.6.0', 'golden/limit_scope/typescript_01.toml', 'Limit scope: typescript 01', 'typescript', {}, 'unchanged', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    ├this._foo = value;\n    return this;┤\n  }\n\n  get foo(): number {\n    return this._foo;\n  }\n}\n', None),
    Golden('1.6.0', 'golden/remove_duplication/basic.toml', 'Remove duplication: keep unchanged', 'javascript', {}, 'discard', False, 'function print(obj) {\n  ├console.log(obj);┤\n  console.log(obj);\n}\n', None),
    Golden('1.6.0', 'golden/remove_duplication/duplicated_block_closing_line_01.toml', 'Remove duplication: duplicated block closing line: case 01', 'javascript', {}, 'text', False, 'function log(obj) {├\n  console.log(obj);\n};┤\n}\n', 'function log(obj) {├\n  console.log(obj);┤\n}\n'),
    Golden('1.6.0', 'golden/remove_duplication/duplicated_line_suffix.toml', 'Remove duplication: dupicated line suffix', 'typescript', {}, 'text', True, 'const log = ({ ok }: { ok:├ boolean }) => { ┤ }) => {\n  console.log(ok);\n}\n', 'const log = ({ ok }: { ok:├ boolean┤ }) => {\n  console.log(ok);\n}\n'),
    Golden('1.6.0', 'golden/remove_duplication/similar_lines_01.toml', 'Remove duplication: similar lines: bad case 01', 'javascript', {}, 'unchanged', True, 'function check(obj) {\n  if (obj.a) {\n    return true;\n  ├}┤\n}\n', None),
    Golden('1.6.0', 'golden/remove_duplication/similar_lines_02.toml', 'Remove duplication: similar lines: bad case 01', 'typescript', {}, 'unchanged', True, 'import { expect } from "chai";\nimport { fibonacci } from "./fibonacci";\n\ndescribe("tests: fibonacci", () => {\n  it("test case 1", () => {\n    const input = 0;\n    const expected = 1;\n    expect(fibonacci(input)).to.be.eq(expected);\n  });\n\n  ├it("test case 2", () => {\n    const input = 1;\n    const expected = 1;\n    expect(fibonacci(input)).to.be.eq(expected);\n  });┤\n  \n  it("test case 3", () => {\n    const input = 2;\n    const expected = 2;\n    expect(fibonacci(input)).to.be.eq(expected);\n  });\n});\n\n', None),
    Golden('1.6.0', 'golden/replace_range/basic.toml', 'Replace range: basic', 'javascript', {}, 'text', False, "function printHello(├) {\n  console.log('Hello');\n}┤)\n", "function printHello(├) {\n  console.log('Hello');\n}┤)╣\n"),
    Golden('1.6.0', 'golden/replace_range/javascript_01.toml', 'Replace range: javascript 01', 'javascript', {}, 'text', False, "const stream = process.stdin;\n// just print data string\nstream.on('data', (data) => {├\n  console.log(data.toString());\n});┤})\n", "const stream = process.stdin;\n// just print data string\nstream.on('data', (data) => {├\n  console.log(data.toString());\n});┤})╣\n"),
    Golden('1.6.0', 'golden/replace_range/jsx_tags_01.toml', 'Replace range: jsx tags: case 01', 'javascriptreact', {}, 'text', False, "import React from 'react';\nimport ReactDOM from 'react-dom/client';\nimport './index.css';\nimport App from './App';\n\nconst root = ReactDOM.createRoot(document.getElementById('root'));\nconst message = <div>Hello world!</div>\nroot.render(\n  <React.StrictMode>\n    <App ├message={message} />┤/>\n  </React.StrictMode>\n);\n\n", "import React from 'react';\nimport ReactDOM from 'react-dom/client';\nimport './index.css';\nimport App from './App';\n\nconst root = ReactDOM.createRoot(document.getElementById('root'));\nconst message = <div>Hello world!</div>\nroot.render(\n  <React.StrictMode>\n    <App ├message={message} />┤/>╣\n  </React.StrictMode>\n);\n\n"),
    Golden('1.6.0', 'golden/replace_range/jsx_tags_02.toml', 'Replace range: jsx tags: case 02', 'javascriptreact', {}, 'text', False, "import React from 'react';\nimport ReactDOM from 'react-dom/client';\nimport './index.css';\nimport App from './App';\n\nconst root = ReactDOM.createRoot(document.getElementById('root'));\nconst message = <div>Hello world!</div>\nroot.render(\n  <React.StrictMode>\n    <App message={message} />\n  </├React.StrictMode>┤>\n);\n\n", "import React from 'react';\nimport ReactDOM from 'react-dom/client';\nimport './index.css';\nimport App from './App';\n\nconst root = ReactDOM.createRoot(document.getElementById('root'));\nconst message = <div>Hello world!</div>\nroot.render(\n  <React.StrictMode>\n    <App message={message} />\n  </├React.StrictMode>┤>╣\n);\n\n"),
    Golden('1.6.0', 'golden/replace_range/mismatched_01.toml', 'Replace range: mismatched case 01', 'typescript', {}, 'text', False, 'def fibonacci(├n):\n  if n == 0:\n    return 0\n  elif n == 1:\n    return 1\n  else:\n    return fibonacci(n - 1) + fibonacci(n - 2)┤)\n', 'def fibonacci(├n):\n  if n == 0:\n    return 0\n  elif n == 1:\n    return 1\n  else:\n    return fibonacci(n - 1) + fibonacci(n - 2)┤)╣\n'),
    Golden('1.6.0', 'golden/replace_range/multiple_01.toml', 'Replace range: multiple closing brackets: case 01', 'javascript', {}, 'text', False, "const stream = process.stdin;\n// just print data string\nstream.on('data', (data) => {├\n  console.log(data.toString());\n});┤})\n", "const stream = process.stdin;\n// just print data string\nstream.on('data', (data) => {├\n  console.log(data.toString());\n});┤})╣\n"),
    Golden('1.6.0', 'golden/replace_range/multiple_02.toml', 'Replace range: multiple closing brackets: case 02', 'typescript', {}, 'text', False, 'function clamp(value: number, min: number, max: number): number {\n  return Math.max(Math.min(├value, max), min);┤))\n}\n', 'function clamp(value: number, min: number, max: number): number {\n  return Math.max(Math.min(├value, max), min);┤))╣\n}\n'),
    Golden('1.6.0', 'golden/replace_range/rust_01.toml', 'Replace range: rust 01', 'rust', {}, 'text', False, 'pub fun myTest(&self, text: String) {\n    let mut body = HashMap::new();\n    body.insert("├text".to_string(), text);┤")\n    let mut headers = HashMap::new();\n    headers.insert("Content-Type".to_string(), "application/json".to_string());\n}\n', 'pub fun myTest(&self, text: String) {\n    let mut body = HashMap::new();\n    body.insert("├text".to_string(), text);┤")╣\n    let mut headers = HashMap::new();\n    headers.insert("Content-Type".to_string(), "application/json".to_string());\n}\n'),
    Golden('1.6.0', 'golden/replace_range/typescript_01.toml', 'Replace range: typescript 01', 'typescript', {}, 'text', False, 'function print(obj: any) {\n  console.log("Obj: ├", obj);┤")\n}\n', 'function print(obj: any) {\n  console.log("Obj: ├", obj);┤")╣\n}\n'),
    # clients/tabby-agent/src/.../postprocess/golden/**/*.toml at 5dfe7a125 (tabby-agent 1.8.0)
    Golden('1.8.0', 'golden/basic_fibonacci_test/python.toml', 'Basic python function fibonacci', 'python', {}, 'unchanged', False, 'def fibonacci(n):\n    ├if n == 0 or n == 1:\n        return n┤\n    return fibonacci(n - 1) + fibonacci(n - 2)\n', None),
    Golden('1.8.0', 'golden/basic_fibonacci_test/rust.toml', 'Basic rust function fibonacci', 'rust', {}, 'text', False, 'fn fibonacci(├n: u32) -> u32 {\n    if n == 0 {\n        0\n    } else if n == 1 {\n        1\n    } else {\n        fibonacci(n - 1) + fibonacci(n - 2)\n    }\n}┤)\n', 'fn fibonacci(├n: u32) -> u32 {\n    if n == 0 {\n        0\n    } else if n == 1 {\n        1\n    } else {\n        fibonacci(n - 1) + fibonacci(n - 2)\n    }\n}┤)╣\n'),
    Golden('1.8.0', 'golden/basic_fibonacci_test/typescript.toml', 'Basic typescript function fibonacci', 'typescript', {}, 'text', False, 'function fibonacci(n:├ number): number {\n  if (n <= 1) {\n    return n;\n  }\n  return fibonacci(n - 1) + fibonacci(n - 2);\n}┤)\n', 'function fibonacci(n:├ number): number {\n  if (n <= 1) {\n    return n;\n  }\n  return fibonacci(n - 1) + fibonacci(n - 2);\n}┤)╣\n'),
    Golden('1.8.0', 'golden/limit_scope/basic.toml', 'Limit scope: keep unchanged', 'typescript', {}, 'unchanged', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    ├this._foo = value;\n    return this;┤\n  }\n}\n', None),
    Golden('1.8.0', 'golden/limit_scope/fill_in_line_01.toml', 'Limit scope: fill in line: case 01', 'javascript', {}, 'unchanged', False, 'function assert(condition, message) {\n  if (!condition) {\n    throw new Error(message);\n  }\n}\n\nvar a = 0;\nvar b = 1;\nassert(├a === b┤, "a is not equal to b");\n\n', None),
    Golden('1.8.0', 'golden/limit_scope/rust_01.toml', 'Limit scope: rust 01', 'rust', {}, 'text', True, 'pub struct StopCondition {\n    stop_re: Option<Regex>,\n    max_decoding_length: ├usize,\n    max_decoding_time: Duration,\n}┤\n}\n', 'pub struct StopCondition {\n    stop_re: Option<Regex>,\n    max_decoding_length: ├usize,\n    max_decoding_time: Duration,┤\n}\n'),
    Golden('1.8.0', 'golden/limit_scope/rust_02.toml', 'Limit scope: rust 02', 'rust', {'postprocess.minCompletionChars': 1}, 'text', False, 'fn add(x: i32, y: i32) -> i32 {\n    println!("x:├ {}", x);\n    println!("y: {}", y);\n    println!("x + y: {}┤", x);\n    return x + y;\n}\n', 'fn add(x: i32, y: i32) -> i32 {\n    println!("x:├ {}┤", x);\n    return x + y;\n}\n'),
    Golden('1.8.0', 'golden/limit_scope/to_block_01.toml', 'Limit scope: limit to block scope: case 01', 'typescript', {}, 'text', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  get├ foo(): number {\n    return this._foo;\n  }\n\n  set foo(value: number) {\n    this._foo = value;\n  }┤\n}\n', 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  get├ foo(): number {\n    return this._foo;\n  }┤\n}\n'),
    Golden('1.8.0', 'golden/limit_scope/to_block_02.toml', 'Limit scope: limit to block scope: case 02', 'typescript', {}, 'text', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  get foo(): number├ {\n    return this._foo;\n  }\n\n  set foo(value: number) {\n    this._foo = value;\n  }┤\n}\n', 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  get foo(): number├ {\n    return this._foo;\n  }┤\n}\n'),
    Golden('1.8.0', 'golden/limit_scope/to_block_03.toml', 'Limit scope: limit to block scope: case 03', 'javascript', {'postprocess.minCompletionChars': 1}, 'text', False, 'function check(obj) {\n  // if obj.a is defined, then return t├rue\n  if (obj.a) {\n    return true;\n  }┤\n  return false;\n}\n', 'function check(obj) {\n  // if obj.a is defined, then return t├rue┤\n  return false;\n}\n'),
    Golden('1.8.0', 'golden/limit_scope/to_line_01.toml', 'Limit scope: limit to single line when completing a line: case 01', 'typescript', {}, 'text', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    this._foo =├ value;\n    return this;┤\n  }\n}\n', 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    this._foo =├ value;┤\n  }\n}\n'),
    Golden('1.8.0', 'golden/limit_scope/typescript_01.toml', 'Limit scope: typescript 01', 'typescript', {}, 'unchanged', False, 'export class Foo {\n  private _foo: number;\n  \n  constructor() {\n    this._foo = 1;\n  }\n  \n  update(value): Foo {\n    ├this._foo = value;\n    return this;┤\n  }\n\n  get foo(): number {\n    return this._foo;\n  }\n}\n', None),
    Golden('1.8.0', 'golden/remove_duplication/basic.toml', 'Remove duplication: keep unchanged', 'javascript', {}, 'discard', False, 'function print(obj) {\n  ├console.log(obj);┤\n  console.log(obj);\n}\n', None),
    Golden('1.8.0', 'golden/remove_duplication/duplicated_block_closing_line_01.toml', 'Remove duplication: duplicated block closing line: case 01', 'javascript', {}, 'text', False, 'function log(obj) {├\n  console.log(obj);\n};┤\n}\n', 'function log(obj) {├\n  console.log(obj);┤\n}\n'),
    Golden('1.8.0', 'golden/remove_duplication/duplicated_line_suffix.toml', 'Remove duplication: dupicated line suffix', 'typescript', {}, 'text', True, 'const log = ({ ok }: { ok:├ boolean }) => { ┤ }) => {\n  console.log(ok);\n}\n', 'const log = ({ ok }: { ok:├ boolean┤ }) => {\n  console.log(ok);\n}\n'),
    Golden('1.8.0', 'golden/remove_duplication/similar_lines_01.toml', 'Remove duplication: similar lines: bad case 01', 'javascript', {}, 'unchanged', True, 'function check(obj) {\n  if (obj.a) {\n    return true;\n  ├}┤\n}\n', None),
    Golden('1.8.0', 'golden/remove_duplication/similar_lines_02.toml', 'Remove duplication: similar lines: bad case 01', 'typescript', {}, 'unchanged', True, 'import { expect } from "chai";\nimport { fibonacci } from "./fibonacci";\n\ndescribe("tests: fibonacci", () => {\n  it("test case 1", () => {\n    const input = 0;\n    const expected = 1;\n    expect(fibonacci(input)).to.be.eq(expected);\n  });\n\n  ├it("test case 2", () => {\n    const input = 1;\n    const expected = 1;\n    expect(fibonacci(input)).to.be.eq(expected);\n  });┤\n  \n  it("test case 3", () => {\n    const input = 2;\n    const expected = 2;\n    expect(fibonacci(input)).to.be.eq(expected);\n  });\n});\n\n', None),
    Golden('1.8.0', 'golden/replace_range/basic.toml', 'Replace range: basic', 'javascript', {}, 'text', False, "function printHello(├) {\n  console.log('Hello');\n}┤)\n", "function printHello(├) {\n  console.log('Hello');\n}┤)╣\n"),
    Golden('1.8.0', 'golden/replace_range/javascript_01.toml', 'Replace range: javascript 01', 'javascript', {}, 'text', False, "const stream = process.stdin;\n// just print data string\nstream.on('data', (data) => {├\n  console.log(data.toString());\n});┤})\n", "const stream = process.stdin;\n// just print data string\nstream.on('data', (data) => {├\n  console.log(data.toString());\n});┤})╣\n"),
    Golden('1.8.0', 'golden/replace_range/jsx_tags_01.toml', 'Replace range: jsx tags: case 01', 'javascriptreact', {}, 'text', False, "import React from 'react';\nimport ReactDOM from 'react-dom/client';\nimport './index.css';\nimport App from './App';\n\nconst root = ReactDOM.createRoot(document.getElementById('root'));\nconst message = <div>Hello world!</div>\nroot.render(\n  <React.StrictMode>\n    <App ├message={message} />┤/>\n  </React.StrictMode>\n);\n\n", "import React from 'react';\nimport ReactDOM from 'react-dom/client';\nimport './index.css';\nimport App from './App';\n\nconst root = ReactDOM.createRoot(document.getElementById('root'));\nconst message = <div>Hello world!</div>\nroot.render(\n  <React.StrictMode>\n    <App ├message={message} />┤/>╣\n  </React.StrictMode>\n);\n\n"),
    Golden('1.8.0', 'golden/replace_range/jsx_tags_02.toml', 'Replace range: jsx tags: case 02', 'javascriptreact', {}, 'text', False, "import React from 'react';\nimport ReactDOM from 'react-dom/client';\nimport './index.css';\nimport App from './App';\n\nconst root = ReactDOM.createRoot(document.getElementById('root'));\nconst message = <div>Hello world!</div>\nroot.render(\n  <React.StrictMode>\n    <App message={message} />\n  </├React.StrictMode>┤>\n);\n\n", "import React from 'react';\nimport ReactDOM from 'react-dom/client';\nimport './index.css';\nimport App from './App';\n\nconst root = ReactDOM.createRoot(document.getElementById('root'));\nconst message = <div>Hello world!</div>\nroot.render(\n  <React.StrictMode>\n    <App message={message} />\n  </├React.StrictMode>┤>╣\n);\n\n"),
    Golden('1.8.0', 'golden/replace_range/mismatched_01.toml', 'Replace range: mismatched case 01', 'typescript', {}, 'text', False, 'def fibonacci(├n):\n  if n == 0:\n    return 0\n  elif n == 1:\n    return 1\n  else:\n    return fibonacci(n - 1) + fibonacci(n - 2)┤)\n', 'def fibonacci(├n):\n  if n == 0:\n    return 0\n  elif n == 1:\n    return 1\n  else:\n    return fibonacci(n - 1) + fibonacci(n - 2)┤)╣\n'),
    Golden('1.8.0', 'golden/replace_range/multiple_01.toml', 'Replace range: multiple closing brackets: case 01', 'javascript', {}, 'text', False, "const stream = process.stdin;\n// just print data string\nstream.on('data', (data) => {├\n  console.log(data.toString());\n});┤})\n", "const stream = process.stdin;\n// just print data string\nstream.on('data', (data) => {├\n  console.log(data.toString());\n});┤})╣\n"),
    Golden('1.8.0', 'golden/replace_range/multiple_02.toml', 'Replace range: multiple closing brackets: case 02', 'typescript', {}, 'text', False, 'function clamp(value: number, min: number, max: number): number {\n  return Math.max(Math.min(├value, max), min);┤))\n}\n', 'function clamp(value: number, min: number, max: number): number {\n  return Math.max(Math.min(├value, max), min);┤))╣\n}\n'),
    Golden('1.8.0', 'golden/replace_range/rust_01.toml', 'Replace range: rust 01', 'rust', {}, 'text', False, 'pub fun myTest(&self, text: String) {\n    let mut body = HashMap::new();\n    body.insert("├text".to_string(), text);┤")\n    let mut headers = HashMap::new();\n    headers.insert("Content-Type".to_string(), "application/json".to_string());\n}\n', 'pub fun myTest(&self, text: String) {\n    let mut body = HashMap::new();\n    body.insert("├text".to_string(), text);┤")╣\n    let mut headers = HashMap::new();\n    headers.insert("Content-Type".to_string(), "application/json".to_string());\n}\n'),
    Golden('1.8.0', 'golden/replace_range/typescript_01.toml', 'Replace range: typescript 01', 'typescript', {}, 'text', False, 'function print(obj: any) {\n  console.log("Obj: ├", obj);┤")\n}\n', 'function print(obj: any) {\n  console.log("Obj: ├", obj);┤")╣\n}\n'),
]


def unit_context(case: Unit, state: AgentState) -> CompletionContext:
    document, cursor = case.document, case.document.find("║")
    if cursor < 0:  # the marker went with the language line: positionAt(-1) is the start
        cursor = 0
    document = document.replace("║", "", 1)
    return CompletionContext.of(document[:cursor], document[cursor:], case.language, case.indentation, state)


def run_unit(rule: str, text: str, preset: int, ctx: CompletionContext, state: AgentState,
             keep_block: bool = False) -> tuple[str | None, int]:
    """The rule alone, as the state has it: (text or None when dropped, replaced characters)."""
    if rule == "calculateReplaceRangeByBracketStack":
        if state.has(SEMICOLON_LINE_END):
            return text or None, replace_range_line_end(ctx)
        return text or None, replace_range_by_bracket_stack(text, ctx, state.has(HTML_JSX_AUTO_CLOSING))
    if rule == "calculateReplaceRangeBySemiColon":
        by_semicolon = replace_range_by_semicolon(text, ctx)
        return text or None, preset if by_semicolon is None else by_semicolon
    rules = {
        "dropBlank": filters.drop_blank, "dropDuplicated": filters.drop_duplicated,
        "dropMinimum": partial(filters.drop_minimum, min_chars=4), "formatIndentation": filters.format_indentation,
        "limitScopeByIndentation": partial(filters.limit_scope_by_indentation, keep_block_scope=keep_block),
        "normalizeIndentation": partial(filters.normalize_indentation,
                                        guard=state.has(NORMALIZE_INDENTATION_GUARD)),
        "removeDuplicateSuffixLines": filters.remove_duplicate_suffix_lines,
        "removeDuplicatedBlockClosingLine": partial(filters.remove_duplicated_block_closing_line,
                                                    trim_end=state.has(BLOCK_CLOSING_TRIM_END)),
        "removeLineEndsWithRepetition": filters.remove_line_ends_with_repetition,
        "removeRepetitiveBlocks": filters.remove_repetitive_blocks,
        "removeRepetitiveLines": filters.remove_repetitive_lines,
        "trimMultiLineInSingleLineMode": filters.trim_multi_line_in_single_line_mode, "trimSpace": filters.trim_space,
    }
    return rules[rule](text, ctx) or None, preset


UNIT_RUNS = [(state, case) for case in UNITS for state in case.states]


@pytest.mark.parametrize(("state", "case"), UNIT_RUNS,
                         ids=[f"{state}:{case.file}:{case.test}" for state, case in UNIT_RUNS])
def test_rule_matches_agent_unit_test(state: str, case: Unit) -> None:
    """clients/tabby-agent/src/codeCompletion/postprocess/<case.file> at case.commits."""
    agent = agent_state(state)
    got = run_unit(case.rule, case.completion, len(case.completion_replace), unit_context(case, agent), agent)
    expected = (case.expected or None, len(case.expected_replace))
    assert (got != expected) if case.kind == "not" else (got == expected)


OLD_UNITS = [c for c in UNIT_CASES if not c.test.endswith(("html tags", "jsx tags"))]


@pytest.mark.parametrize("case", OLD_UNITS, ids=[c.id for c in OLD_UNITS])
def test_1_3_0_rule_matches_agent_unit_test(case: Any) -> None:
    """clients/tabby-agent/src/postprocess/<case.file> at b75f12e5f (1.3.0): the 1.5.0 assertions
    but the two html/jsx ones, through the 1.3.0 bracket stack and line-end set."""
    agent = agent_state("1.3.0")
    cursor = case.document.index("║")
    ctx = CompletionContext.of(case.document[:cursor], case.document[cursor + 1:], case.language, case.indentation, agent)
    rule = case.id.rsplit("-", 1)[0]
    text, replaced = run_unit(rule, case.completion, 0, ctx, agent, keep_block=case.keep_block)
    by_range = rule == "calculateReplaceRangeByBracketStack"
    got, expected = (replaced, case.expected) if by_range else (text, case.expected or None)
    assert (got != expected) if case.kind == "not" else (got == expected)


def refused(case: Golden | GoldenCase, state: AgentState) -> bool:
    opts = state_options(case.options, state)
    syntax = ("postprocess.limitScope.experimentalSyntax", "postprocess.calculateReplaceRange.experimentalSyntax")
    return case.language in SYNTAX_LANGUAGES and any(opts.get(key) for key in syntax)


GOLDEN_RUNS = [(g.state, g) for g in GOLDENS] + [
    (state, g) for g in GOLDENS if g.state == "1.6.0" for state in ("1.7.0",)] + [
    (state, g) for g in GOLDENS if g.state == "1.8.0" for state in ("1.9.0-dev@2024-12-30", "1.9.0-dev")] + [
    (state, g) for g in GOLDEN_CASES for state in ("1.3.2", "1.3.3", "1.4.2")]


@pytest.mark.parametrize(("state", "case"), GOLDEN_RUNS, ids=[f"{state}:{case.path}" for state, case in GOLDEN_RUNS])
def test_golden_postprocess(state: str, case: Golden | GoldenCase) -> None:
    """clients/tabby-agent/src/.../postprocess/<case.path> through preCacheProcess +
    postCacheProcess of tabby-agent `state` (its golden runner: text and replace range, the text
    only from 309edd172)."""
    agent = agent_state(state)
    prefix, completion, suffix, _ = parse_doc(case.text)
    if refused(case, agent):
        with pytest.raises(TabbyInputError, match="tree-sitter"):
            postprocess(prefix, suffix, completion, case.language, config=case.options, version=state)
        return
    shown = postprocess(prefix, suffix, completion, case.language, config=case.options, version=state)
    got, expected = (shown.text, shown.replace_after), golden_expected(case)  # type: ignore[arg-type]
    if state == "1.9.0-dev":
        got, expected = got[:1], expected[:1]
    assert (got != expected) if case.not_equal else (got == expected)


def test_case_counts() -> None:
    states = {state for state, _ in UNIT_RUNS}
    assert states == {"1.8.0", "1.9.0-dev@2024-12-30", "1.9.0-dev"}
    assert [sum(1 for s, _ in UNIT_RUNS if s == state) for state in sorted(states)] == [49, 55, 70]
    assert {g.state: sum(1 for x in GOLDENS if x.state == g.state) for g in GOLDENS} == {
        "1.3.0": 22, "1.3.1": 26, "1.6.0": 26, "1.8.0": 26}


# Rules between the agent's tests: states and the options they know.

def test_rules_are_ordered_and_dated() -> None:
    assert [r.at for r in COMPLETION_RULES] == sorted(r.at for r in COMPLETION_RULES)
    assert all(len(r.commit) == 40 and r.at.endswith("Z") for r in COMPLETION_RULES)


def test_state_defaults() -> None:
    """AgentConfig.ts defaultAgentConfig.postprocess per release: experimental tree-sitter rules on
    in 1.3.1 (cb50aeac5), the replace range's off in 1.3.2 (a818905c7), all off in 1.3.3
    (77b52acea), gone in 1.6.0 (edb23ff99); minCompletionChars from 7227d0b17."""
    syntax, keep, replace = ("postprocess.limitScope.experimentalSyntax",
                             "postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine",
                             "postprocess.calculateReplaceRange.experimentalSyntax")
    assert state_options(None, agent_state("1.3.0")) == {syntax: False, keep: False, replace: False}
    assert state_options(None, agent_state("1.3.1")) == {syntax: True, keep: True, replace: True}
    assert state_options(None, agent_state("1.3.2")) == {syntax: True, keep: True, replace: False}
    assert state_options(None, agent_state("1.3.3")) == {syntax: False, keep: False, replace: False}
    assert state_options(None, agent_state("1.7.0")) == {}
    assert state_options(None, agent_state("1.8.0")) == {"postprocess.minCompletionChars": 4}
    with pytest.raises(TabbyInputError, match="has no option"):
        state_options({syntax: True}, agent_state("1.6.0"))
    with pytest.raises(TabbyInputError, match="has no option"):
        state_options({"postprocess.minCompletionChars": 1}, agent_state("1.5.0"))


def test_1_3_1_refuses_tree_sitter_languages_by_default_and_falls_back_elsewhere() -> None:
    with pytest.raises(TabbyInputError, match="tree-sitter"):
        postprocess("const a = ", "\n", "1;", "typescript", version="1.3.1")
    assert postprocess("uint a = ", "\n", "1;", "solidity", version="1.3.1").text == "1;"


def test_drop_minimum_from_7227d0b17() -> None:
    """dropBlank keeps "x;" (1.7.0); dropMinimum drops it (1.8.0): under 4 characters trimmed."""
    assert postprocess("a = ", "\n", "x;", "solidity", version="1.7.0").text == "x;"
    assert postprocess("a = ", "\n", "x;", "solidity", version="1.8.0").text is None
    assert postprocess("a = ", "\n", "x;", "solidity", version="1.8.0", config={"postprocess.minCompletionChars": 1}).text == "x;"


def test_line_end_replace_ranges_by_era() -> None:
    """The rest `);` after the cursor: the bracket stack replaces the unpaired `)` only (1.8.0);
    from eae43ba76 `;` and `,` make it a line end and the whole rest is replaced; from 309edd172
    any rest without word characters is, the text regardless."""
    prefix, suffix = "foo(bar", ");\nnext();\n"
    assert postprocess(prefix, suffix, ", baz)", "typescript", version="1.8.0").replace_after == 1
    shown = postprocess(prefix, suffix, ", baz);", "typescript", version="1.9.0-dev@2024-12-30")
    assert (shown.text, shown.replace_after, shown.multiline) == (", baz);", 2, True)
    shown = postprocess(prefix, suffix, ", baz", "typescript", version="1.9.0-dev")
    assert (shown.text, shown.replace_after) == (", baz", 2)
    shown = postprocess("x = [1", " ] + y\n", ", 22", "typescript", version="1.9.0-dev")
    assert (shown.text, shown.replace_after, shown.multiline) == (", 22", 0, False)
    shown = postprocess("x = f(1", " ) -> {}\n", ", 2, 3", "typescript", version="1.9.0-dev")
    assert (shown.text, shown.replace_after, shown.multiline) == (", 2, 3", 8, True)


def test_semicolon_range_runs_off_a_line_end_too() -> None:
    """calculateReplaceRangeBySemiColon.ts: a rest starting with `;` is replaced by a text ending
    in `;`, even where the rest is not a line end."""
    shown = postprocess("let a = b", "; // note\n", " + c;", "typescript", version="1.9.0-dev@2024-12-30")
    assert (shown.text, shown.replace_after, shown.multiline) == (" + c;", 1, False)


def test_1_3_0_line_end_has_no_angle_brackets() -> None:
    """CompletionContext.ts before bb2afea15: only `)]}'"` + "`" count; a `>` rest is mid-line."""
    assert postprocess("<div", ">\n", " class='a'\nx", "html", version="1.3.0").text is None
    assert postprocess("<div", ">\n", " class='a'\nx", "html", version="1.3.1").text == " class='a'\nx"


def test_blank_prefix_check_by_era() -> None:
    """createSegments (1.5.0): the last 20 lines; isValid (1.6.0): the whole prefix; none at the freeze."""
    inp = EditorInput(prefix="contract A {\n" + "\n" * 25, suffix="}\n", language="solidity")
    assert complete(inp, "uint x;", version="1.5.0").text is None
    assert complete(inp, "uint x;", version="1.6.0").text == "uint x;"
    blank = EditorInput(prefix="\n\n", suffix="", language="solidity")
    assert complete(blank, "uint x;", version="1.6.0").text is None
    assert complete(blank, "uint x;", version="1.9.0-dev").text == "uint x;"


def test_request_timeout_by_era() -> None:
    """completion.timeout 4 s until 84f27ce67, then server.requestTimeout 2 min."""
    inp = EditorInput(prefix="uint a = ", suffix="\n", language="solidity")
    late = [(4, 5.0)]
    shown = complete(inp, "1234;", version="1.3.0", timing=late)
    assert (shown.text, shown.timing_applied) == (None, True)
    assert complete(inp, "1234;", version="1.3.1", timing=late).text == "1234;"


def test_trigger_does_not_change_one_choice() -> None:
    inp = EditorInput(prefix="uint a = ", suffix="\n", language="solidity")
    manual = EditorInput(prefix="uint a = ", suffix="\n", language="solidity", trigger="manual")
    for version in ("1.5.0", "1.6.0", "1.9.0-dev"):
        assert complete(inp, "1234;", version=version) == complete(manual, "1234;", version=version)


def test_stream_stop_is_none_in_every_release() -> None:
    for version in ("1.3.0", "1.5.0", "1.8.0", None):
        assert stream_stop(EditorInput(prefix="a", suffix=""), version=version) is None
