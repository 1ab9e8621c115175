"""tabby-agent 1.5.0's completion stage (replay.editors.tabby.completion), rule by rule, on the
agent's own test cases, transcribed from TabbyML/tabby at commit 3c12cc135 ("bump tabby-agent
... to 1.5.0"):

- UNIT_CASES: every assertion of clients/tabby-agent/src/postprocess/<rule>.test.ts for the rules
  the default config runs (51; the documents and completions are the values the tests' `dedent`
  0.7.0 template tags produce, `║` marking the cursor). The limitScopeBySyntax and
  calculateReplaceRangeBySyntax tests (20 assertions) need tree-sitter and are not here.
- a few cases of our own for the JavaScript string semantics the port keeps.

The golden/**/*.toml files: test_completion_golden.py.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from replay.editors.tabby import completion as tc
from replay.editors.tabby import context as tabby_context
from replay.editors.tabby import filters
from replay.editors.tabby.completion import CompletionContext, complete
from replay.editors.tabby.options import TabbyInputError
from replay.editors.tabby.releases import agent_state
from replay.records import EditorInput

SOURCE = "TabbyML/tabby clients/tabby-agent/src/postprocess/"
V = "1.5.0"  # the agent release these cases are of


class UnitCase(NamedTuple):
    """One assertion of a postprocess/<rule>.test.ts: the rule run alone on `completion` at the
    cursor `║` of `document`; kind "eq" (result == expected), "null" (dropped) or "not"
    (a documented bad case: result != expected). For calculateReplaceRangeByBracketStack the
    expected value is the replace range's end minus the cursor."""

    id: str
    file: str
    test: str
    language: str
    indentation: str | None
    keep_block: bool
    kind: str
    document: str
    completion: str
    expected: Any


# clients/tabby-agent/src/postprocess/*.test.ts at 1.5.0 (file named in each case).
UNIT_CASES: list[UnitCase] = [
    UnitCase('calculateReplaceRangeByBracketStack-1', 'calculateReplaceRangeByBracketStack.test.ts', 'calculateReplaceRangeByBracketStack / should handle auto closing quotes',
             language='typescript', indentation=None, keep_block=False, kind='eq',
             document='const hello = "║"',
             completion='hello";',
             expected=1),
    UnitCase('calculateReplaceRangeByBracketStack-2', 'calculateReplaceRangeByBracketStack.test.ts', 'calculateReplaceRangeByBracketStack / should handle auto closing quotes',
             language='typescript', indentation=None, keep_block=False, kind='eq',
             document='let htmlMarkup = `║`',
             completion='<h1>\\${message}</h1>`;',
             expected=1),
    UnitCase('calculateReplaceRangeByBracketStack-3', 'calculateReplaceRangeByBracketStack.test.ts', 'calculateReplaceRangeByBracketStack / should handle multiple auto closing brackets',
             language='typescript', indentation=None, keep_block=False, kind='eq',
             document="process.on('data', (data) => {║})",
             completion='\n  console.log(data);\n});',
             expected=2),
    UnitCase('calculateReplaceRangeByBracketStack-4', 'calculateReplaceRangeByBracketStack.test.ts', 'calculateReplaceRangeByBracketStack / should handle multiple auto closing brackets',
             language='typescript', indentation=None, keep_block=False, kind='eq',
             document='let mat: number[][][] = [[[║]]]',
             completion='1, 2], [3, 4]], [[5, 6], [7, 8]]];',
             expected=3),
    UnitCase('calculateReplaceRangeByBracketStack-5', 'calculateReplaceRangeByBracketStack.test.ts', 'calculateReplaceRangeByBracketStack / should handle html tags',
             language='html', indentation=None, keep_block=False, kind='eq',
             document='<html></h║>',
             completion='tml>',
             expected=1),
    UnitCase('calculateReplaceRangeByBracketStack-6', 'calculateReplaceRangeByBracketStack.test.ts', 'calculateReplaceRangeByBracketStack / should handle jsx tags',
             language='javascriptreact', indentation=None, keep_block=False, kind='eq',
             document=('root.render(\n'
                       '  <React.StrictMode>\n'
                       '    <App m║/>\n'
                       '  </React.StrictMode>\n'
                       ');'),
             completion='essage={message} />',
             expected=2),
    UnitCase('calculateReplaceRangeByBracketStack-7', 'calculateReplaceRangeByBracketStack.test.ts', 'calculateReplaceRangeByBracketStack: bad cases / cannot handle the case of completion bracket stack is same with suffix but should not be replaced',
             language='typescript', indentation=None, keep_block=False, kind='not',
             document=('function clamp(n: number, max: number, min: number): number {\n'
                       '  return Math.max(Math.min(║);\n'
                       '}'),
             completion='n, max), min',
             expected=0),
    UnitCase('dropBlank-1', 'dropBlank.test.ts', 'dropBlank / should return null if input is blank',
             language='plaintext', indentation=None, keep_block=False, kind='null',
             document='dummy║',
             completion='\n',
             expected=None),
    UnitCase('dropBlank-2', 'dropBlank.test.ts', 'dropBlank / should return null if input is blank',
             language='plaintext', indentation=None, keep_block=False, kind='null',
             document='dummy║',
             completion='\t\n',
             expected=None),
    UnitCase('dropBlank-3', 'dropBlank.test.ts', 'dropBlank / should keep unchanged if input is not blank',
             language='plaintext', indentation=None, keep_block=False, kind='eq',
             document='dummy║',
             completion='Not blank',
             expected='Not blank'),
    UnitCase('dropDuplicated-1', 'dropDuplicated.test.ts', 'dropDuplicated / should drop completion duplicated with suffix',
             language='javascript', indentation=None, keep_block=False, kind='null',
             document=('let sum = (a, b) => {\n'
                       '  ║return a + b;\n'
                       '};'),
             completion='return a + b;',
             expected=None),
    UnitCase('dropDuplicated-2', 'dropDuplicated.test.ts', 'dropDuplicated / should drop completion similar to suffix',
             language='javascript', indentation=None, keep_block=False, kind='null',
             document=('let sum = (a, b) => {\n'
                       '  return a + b;\n'
                       '  ║\n'
                       '};'),
             completion='}',
             expected=None),
    UnitCase('formatIndentation-1', 'formatIndentation.test.ts', 'formatIndentation / should format indentation if first line of completion is over indented.',
             language='typescript', indentation='  ', keep_block=False, kind='eq',
             document=('function clamp(n: number, max: number, min: number): number {\n'
                       '  ║\n'
                       '}'),
             completion='  return Math.max(Math.min(n, max), min);',
             expected='return Math.max(Math.min(n, max), min);'),
    UnitCase('formatIndentation-2', 'formatIndentation.test.ts', 'formatIndentation / should format indentation if first line of completion is wrongly indented.',
             language='typescript', indentation='    ', keep_block=False, kind='eq',
             document=('function clamp(n: number, max: number, min: number): number {\n'
                       '║\n'
                       '}'),
             completion='  return Math.max(Math.min(n, max), min);',
             expected='    return Math.max(Math.min(n, max), min);'),
    UnitCase('formatIndentation-3', 'formatIndentation.test.ts', 'formatIndentation / should format indentation if completion lines is over indented.',
             language='python', indentation='  ', keep_block=False, kind='eq',
             document='def findMax(arr):║',
             completion=('\n'
                         '    max = arr[0]\n'
                         '    for i in range(1, len(arr)):\n'
                         '        if arr[i] > max:\n'
                         '            max = arr[i]\n'
                         '    return max\n'
                         '}'),
             expected=('\n'
                       '  max = arr[0]\n'
                       '  for i in range(1, len(arr)):\n'
                       '    if arr[i] > max:\n'
                       '      max = arr[i]\n'
                       '  return max\n'
                       '}')),
    UnitCase('formatIndentation-4', 'formatIndentation.test.ts', 'formatIndentation / should format indentation if completion lines is wrongly indented.',
             language='python', indentation='    ', keep_block=False, kind='eq',
             document='def findMax(arr):║',
             completion=('\n'
                         '  max = arr[0]\n'
                         '  for i in range(1, len(arr)):\n'
                         '    if arr[i] > max:\n'
                         '      max = arr[i]\n'
                         '  return max\n'
                         '}'),
             expected=('\n'
                       '    max = arr[0]\n'
                       '    for i in range(1, len(arr)):\n'
                       '        if arr[i] > max:\n'
                       '            max = arr[i]\n'
                       '    return max\n'
                       '}')),
    UnitCase('formatIndentation-5', 'formatIndentation.test.ts', 'formatIndentation / should keep it unchanged if it no indentation specified.',
             language='python', indentation=None, keep_block=False, kind='eq',
             document='def findMax(arr):║',
             completion=('\n'
                         '    max = arr[0]\n'
                         '    for i in range(1, len(arr)):\n'
                         '        if arr[i] > max:\n'
                         '            max = arr[i]\n'
                         '    return max\n'
                         '}'),
             expected=('\n'
                       '    max = arr[0]\n'
                       '    for i in range(1, len(arr)):\n'
                       '        if arr[i] > max:\n'
                       '            max = arr[i]\n'
                       '    return max\n'
                       '}')),
    UnitCase('formatIndentation-6', 'formatIndentation.test.ts', 'formatIndentation / should keep it unchanged if there is indentation in the context.',
             language='python', indentation='\t', keep_block=False, kind='eq',
             document=('def hello():\n'
                       '    return "world"\n'
                       '\n'
                       'def findMax(arr):║'),
             completion=('\n'
                         '    max = arr[0]\n'
                         '    for i in range(1, len(arr)):\n'
                         '        if arr[i] > max:\n'
                         '            max = arr[i]\n'
                         '    return max\n'
                         '}'),
             expected=('\n'
                       '    max = arr[0]\n'
                       '    for i in range(1, len(arr)):\n'
                       '        if arr[i] > max:\n'
                       '            max = arr[i]\n'
                       '    return max\n'
                       '}')),
    UnitCase('formatIndentation-7', 'formatIndentation.test.ts', 'formatIndentation / should keep it unchanged if it is well indented.',
             language='python', indentation='    ', keep_block=False, kind='eq',
             document='def findMax(arr):║',
             completion=('\n'
                         '    max = arr[0]\n'
                         '    for i in range(1, len(arr)):\n'
                         '        if arr[i] > max:\n'
                         '            max = arr[i]\n'
                         '    return max\n'
                         '}'),
             expected=('\n'
                       '    max = arr[0]\n'
                       '    for i in range(1, len(arr)):\n'
                       '        if arr[i] > max:\n'
                       '            max = arr[i]\n'
                       '    return max\n'
                       '}')),
    UnitCase('limitScopeByIndentation-1', 'limitScopeByIndentation.test.ts', 'limitScopeByIndentation: default config / should limit scope at sentence end, when completion is continuing uncompleted sentence in the prefix.',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document='let a =║',
             completion=' 1;\nlet b = 2;',
             expected=' 1;'),
    UnitCase('limitScopeByIndentation-2', 'limitScopeByIndentation.test.ts', 'limitScopeByIndentation: default config / should limit scope at sentence end, when completion is continuing uncompleted sentence in the prefix.',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document=('function safeParse(json) {\n'
                       '  try {\n'
                       '    console.log║\n'
                       '  } catch (error) {\n'
                       '    console.error(error);\n'
                       '    return null;\n'
                       '  }\n'
                       '}'),
             completion=('("Parsing", { json });\n'
                         '    return JSON.parse(json);\n'
                         '  } catch (e) {\n'
                         '    return null;\n'
                         '  }\n'
                         '}'),
             expected='("Parsing", { json });'),
    UnitCase('limitScopeByIndentation-3', 'limitScopeByIndentation.test.ts', 'limitScopeByIndentation: default config / should limit scope at next indent level, including closing line, when completion is starting a new indent level in next line.',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document='function findMax(arr) {║}',
             completion=('\n'
                         '  let max = arr[0];\n'
                         '  for (let i = 1; i < arr.length; i++) {\n'
                         '    if (arr[i] > max) {\n'
                         '      max = arr[i];\n'
                         '    }\n'
                         '  }\n'
                         '  return max;\n'
                         '}\n'
                         'console.log(findMax([1, 2, 3, 4, 5]));'),
             expected=('\n'
                       '  let max = arr[0];\n'
                       '  for (let i = 1; i < arr.length; i++) {\n'
                       '    if (arr[i] > max) {\n'
                       '      max = arr[i];\n'
                       '    }\n'
                       '  }\n'
                       '  return max;\n'
                       '}')),
    UnitCase('limitScopeByIndentation-4', 'limitScopeByIndentation.test.ts', 'limitScopeByIndentation: default config / should limit scope at next indent level, including closing line, when completion is continuing uncompleted sentence in the prefix, and starting a new indent level in next line.',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document=('function findMax(arr) {\n'
                       '  let max = arr[0];\n'
                       '  for║\n'
                       '}'),
             completion=(' (let i = 1; i < arr.length; i++) {\n'
                         '    if (arr[i] > max) {\n'
                         '      max = arr[i];\n'
                         '    }\n'
                         '  }\n'
                         '  return max;\n'
                         '}\n'
                         'console.log(findMax([1, 2, 3, 4, 5]));'),
             expected=(' (let i = 1; i < arr.length; i++) {\n'
                       '    if (arr[i] > max) {\n'
                       '      max = arr[i];\n'
                       '    }\n'
                       '  }')),
    UnitCase('limitScopeByIndentation-5', 'limitScopeByIndentation.test.ts', 'limitScopeByIndentation: default config / should limit scope at current indent level, including closing line, when completion starts new sentences at same indent level.',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document=('function findMax(arr) {\n'
                       '  let max = arr[0];║\n'
                       '}'),
             completion=('\n'
                         '  for (let i = 1; i < arr.length; i++) {\n'
                         '    if (arr[i] > max) {\n'
                         '      max = arr[i];\n'
                         '    }\n'
                         '  }\n'
                         '  return max;\n'
                         '}'),
             expected=('\n'
                       '  for (let i = 1; i < arr.length; i++) {\n'
                       '    if (arr[i] > max) {\n'
                       '      max = arr[i];\n'
                       '    }\n'
                       '  }\n'
                       '  return max;\n'
                       '}')),
    UnitCase('limitScopeByIndentation-6', 'limitScopeByIndentation.test.ts', 'limitScopeByIndentation: default config / should allow only one level closing bracket',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document=('function safeParse(json) {\n'
                       '  try {\n'
                       '    return JSON.parse(json);\n'
                       '  } catch (e) {\n'
                       '    return null;║'),
             completion='\n  }\n}',
             expected='\n  }'),
    UnitCase('limitScopeByIndentation-7', 'limitScopeByIndentation.test.ts', 'limitScopeByIndentation: default config / should allow level closing bracket at current line, it looks same as starts new sentences',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document=('function helloworld() {\n'
                       '  console.log("hello");\n'
                       '  ║'),
             completion='}',
             expected='}'),
    UnitCase('limitScopeByIndentation-8', 'limitScopeByIndentation.test.ts', 'limitScopeByIndentation: default config / should not allow level closing bracket, when the suffix lines have same indent level',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document=('function helloworld() {\n'
                       '  console.log("hello");║\n'
                       '  console.log("world");\n'
                       '}'),
             completion='\n}',
             expected=''),
    UnitCase('limitScopeByIndentation-9', 'limitScopeByIndentation.test.ts', 'limitScopeByIndentation: default config / should use indent level of previous line, when current line is empty.',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document=('function safeParse(json) {\n'
                       '  try {\n'
                       '    ║\n'
                       '  }\n'
                       '}'),
             completion=('return JSON.parse(json);\n'
                         '  } catch (e) {\n'
                         '    return null;\n'
                         '  }\n'
                         '}'),
             expected=('return JSON.parse(json);\n'
                       '  } catch (e) {\n'
                       '    return null;\n'
                       '  }')),
    UnitCase('limitScopeByIndentation-10', 'limitScopeByIndentation.test.ts', "limitScopeByIndentation: bad cases / cannot handle the case of indent that does'nt have a close line, e.g. chaining call",
             language='javascript', indentation=None, keep_block=False, kind='not',
             document=('function sortWords(input) {\n'
                       '  const output = input.trim()\n'
                       '    .split("\n'
                       '")\n'
                       '    .map((line) => line.split(" "))\n'
                       '    ║\n'
                       '}'),
             completion=('.flat()\n'
                         '    .sort()\n'
                         '    .join(" ");\n'
                         '  console.log(output);\n'
                         '  return output;\n'
                         '}\n'
                         'sortWords("world hello");'),
             expected=('.flat()\n'
                       '    .sort()\n'
                       '    .join(" ");\n'
                       '  console.log(output);\n'
                       '  return output;\n'
                       '}')),
    UnitCase('limitScopeByIndentation-11', 'limitScopeByIndentation.test.ts', "limitScopeByIndentation: bad cases / cannot handle the case of indent that does'nt have a close line, e.g. python def function",
             language='python', indentation=None, keep_block=False, kind='not',
             document='def findMax(arr):\n  ║',
             completion=('max = arr[0]\n'
                         '  for i in range(1, len(arr)):\n'
                         '    if arr[i] > max:\n'
                         '      max = arr[i]\n'
                         '  return max\n'
                         'findMax([1, 2, 3, 4, 5])'),
             expected=('max = arr[0]\n'
                       'for i in range(1, len(arr)):\n'
                       '  if arr[i] > max:\n'
                       '    max = arr[i]\n'
                       'return max')),
    UnitCase('limitScopeByIndentation-12', 'limitScopeByIndentation.test.ts', 'limitScopeByIndentation: with experimentalKeepBlockScopeWhenCompletingLine on / should limit scope at block end, when completion is continuing uncompleted sentence in the prefix.',
             language='javascript', indentation=None, keep_block=True, kind='eq',
             document='let a =║',
             completion=' 1;\nlet b = 2;',
             expected=' 1;\nlet b = 2;'),
    UnitCase('limitScopeByIndentation-13', 'limitScopeByIndentation.test.ts', 'limitScopeByIndentation: with experimentalKeepBlockScopeWhenCompletingLine on / should limit scope at block end, when completion is continuing uncompleted sentence in the prefix.',
             language='javascript', indentation=None, keep_block=True, kind='eq',
             document=('function safeParse(json) {\n'
                       '  try {\n'
                       '    console.log║\n'
                       '  }\n'
                       '}'),
             completion=('("Parsing", { json });\n'
                         '    return JSON.parse(json);\n'
                         '  } catch (e) {\n'
                         '    return null;\n'
                         '  }\n'
                         '}'),
             expected=('("Parsing", { json });\n'
                       '    return JSON.parse(json);\n'
                       '  } catch (e) {\n'
                       '    return null;\n'
                       '  }')),
    UnitCase('limitScopeByIndentation-14', 'limitScopeByIndentation.test.ts', 'limitScopeByIndentation: with experimentalKeepBlockScopeWhenCompletingLine on / should limit scope at same indent level, including closing line, when completion is continuing uncompleted sentence in the prefix, and starting a new indent level in next line.',
             language='javascript', indentation=None, keep_block=True, kind='eq',
             document=('function findMax(arr) {\n'
                       '  let max = arr[0];\n'
                       '  for║\n'
                       '}'),
             completion=(' (let i = 1; i < arr.length; i++) {\n'
                         '    if (arr[i] > max) {\n'
                         '      max = arr[i];\n'
                         '    }\n'
                         '  }\n'
                         '  return max;\n'
                         '}\n'
                         'console.log(findMax([1, 2, 3, 4, 5]));'),
             expected=(' (let i = 1; i < arr.length; i++) {\n'
                       '    if (arr[i] > max) {\n'
                       '      max = arr[i];\n'
                       '    }\n'
                       '  }\n'
                       '  return max;\n'
                       '}')),
    UnitCase('removeDuplicatedBlockClosingLine-1', 'removeDuplicatedBlockClosingLine.test.ts', 'removeDuplicatedBlockClosingLine / should remove duplicated block closing line.',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document='function hello() {\n  ║\n}',
             completion='console.log("hello");\n}',
             expected='console.log("hello");'),
    UnitCase('removeDuplicatedBlockClosingLine-2', 'removeDuplicatedBlockClosingLine.test.ts', 'removeDuplicatedBlockClosingLine / should remove duplicated block closing line.',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document=('function check(condition) {\n'
                       '  if (!condition) {\n'
                       '    ║\n'
                       '  } else {\n'
                       '    return;\n'
                       '  }\n'
                       '}'),
             completion=('throw new Error("check not passed");\n'
                         '  }'),
             expected='throw new Error("check not passed");'),
    UnitCase('removeDuplicatedBlockClosingLine-3', 'removeDuplicatedBlockClosingLine.test.ts', 'removeDuplicatedBlockClosingLine / should not remove non-duplicated block closing line.',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document=('function check(condition) {\n'
                       '  if (!condition) {\n'
                       '    ║\n'
                       '}'),
             completion=('throw new Error("check not passed");\n'
                         '  }'),
             expected=('throw new Error("check not passed");\n'
                       '  }')),
    UnitCase('removeLineEndsWithRepetition-1', 'removeLineEndsWithRepetition.test.ts', 'removeLineEndsWithRepetition / should drop one line completion ends with repetition',
             language='javascript', indentation=None, keep_block=False, kind='null',
             document='let foo = ║',
             completion='foo = foo = foo = foo = foo = foo = foo =',
             expected=None),
    UnitCase('removeLineEndsWithRepetition-2', 'removeLineEndsWithRepetition.test.ts', 'removeLineEndsWithRepetition / should remove last line that ends with repetition',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document=('let largeNumber = 1000000\n'
                       'let veryLargeNumber = ║'),
             completion=('1000000000\n'
                         'let superLargeNumber = 1000000000000000000000000000000000000000000000'),
             expected='1000000000'),
    UnitCase('removeLineEndsWithRepetition-3', 'removeLineEndsWithRepetition.test.ts', 'removeLineEndsWithRepetition / should keep repetition less than threshold',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document=('let largeNumber = 1000000\n'
                       'let veryLargeNumber = ║'),
             completion='1000000000000',
             expected='1000000000000'),
    UnitCase('removeRepetitiveBlocks-1', 'removeRepetitiveBlocks.test.ts', 'removeRepetitiveBlocks / should remove repetitive blocks',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document=('function myFuncA() {\n'
                       '  console.log("myFuncA called.");\n'
                       '}\n'
                       '\n'
                       '║'),
             completion=('function myFuncB() {\n'
                         '  console.log("myFuncB called.");\n'
                         '}\n'
                         '\n'
                         'function myFuncC() {\n'
                         '  console.log("myFuncC called.");\n'
                         '}\n'
                         '\n'
                         'function myFuncD() {\n'
                         '  console.log("myFuncD called.");\n'
                         '}\n'
                         '\n'
                         'function myFuncE() {\n'
                         '  console.log("myFuncE called.");\n'
                         '}\n'
                         '\n'
                         'function myFuncF() {\n'
                         '  console.log("myFuncF called.");\n'
                         '}\n'
                         '\n'
                         'function myFuncG() {\n'
                         '  console.log("myFuncG called.");\n'
                         '}\n'
                         '\n'
                         'function myFuncH() {\n'
                         '  console.log("myFuncH '),
             expected=('function myFuncB() {\n'
                       '  console.log("myFuncB called.");\n'
                       '}')),
    UnitCase('removeRepetitiveLines-1', 'removeRepetitiveLines.test.ts', 'removeRepetitiveLines / should remove repetitive lines',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document=('function hello() {\n'
                       '  console.log("hello");\n'
                       '}\n'
                       'hello();\n'
                       'hello();\n'
                       '║'),
             completion=('hello();\n'
                         'hello();\n'
                         'hello();\n'
                         'hello();\n'
                         'hello();\n'
                         'hello();\n'
                         'hello();\n'
                         'hello();\n'
                         'hello();\n'
                         'hello();'),
             expected='hello();'),
    UnitCase('removeRepetitiveLines-2', 'removeRepetitiveLines.test.ts', 'removeRepetitiveLines / should remove repetitive lines with patterns',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document='const a = 1;\n║',
             completion=('const b = 1;\n'
                         'const c = 1;\n'
                         'const d = 1;\n'
                         'const e = 1;\n'
                         'const f = 1;\n'
                         'const g = 1;\n'
                         'const h = 1;\n'
                         'const i = 1;\n'
                         'const j = 1;\n'
                         'const k ='),
             expected='const b = 1;'),
    UnitCase('trimMultiLineInSingleLineMode-1', 'trimMultiLineInSingleLineMode.test.ts', 'trimMultiLineInSingleLineMode / should trim multiline completions, when the suffix have non-auto-closed chars in the current line.',
             language='javascript', indentation=None, keep_block=False, kind='null',
             document=('let error = new Error("Something went wrong");\n'
                       'console.log(║message);'),
             completion='message);\nthrow error;',
             expected=None),
    UnitCase('trimMultiLineInSingleLineMode-2', 'trimMultiLineInSingleLineMode.test.ts', 'trimMultiLineInSingleLineMode / should trim multiline completions, when the suffix have non-auto-closed chars in the current line.',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document=('let error = new Error("Something went wrong");\n'
                       'console.log(║message);'),
             completion='error, message);\nthrow error;',
             expected='error, '),
    UnitCase('trimMultiLineInSingleLineMode-3', 'trimMultiLineInSingleLineMode.test.ts', 'trimMultiLineInSingleLineMode / should allow singleline completions, when the suffix have non-auto-closed chars in the current line.',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document=('let error = new Error("Something went wrong");\n'
                       'console.log(║message);'),
             completion='error, ',
             expected='error, '),
    UnitCase('trimMultiLineInSingleLineMode-4', 'trimMultiLineInSingleLineMode.test.ts', 'trimMultiLineInSingleLineMode / should allow multiline completions, when the suffix only have auto-closed chars that will be replaced in the current line, such as `)]}`.',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document='function findMax(arr) {║}',
             completion=('\n'
                         '  let max = arr[0];\n'
                         '  for (let i = 1; i < arr.length; i++) {\n'
                         '    if (arr[i] > max) {\n'
                         '      max = arr[i];\n'
                         '    }\n'
                         '  }\n'
                         '  return max;\n'
                         '}'),
             expected=('\n'
                       '  let max = arr[0];\n'
                       '  for (let i = 1; i < arr.length; i++) {\n'
                       '    if (arr[i] > max) {\n'
                       '      max = arr[i];\n'
                       '    }\n'
                       '  }\n'
                       '  return max;\n'
                       '}')),
    UnitCase('trimSpace-1', 'trimSpace.test.ts', 'trimSpace / should remove trailing space',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document='let foo = new ║',
             completion='Foo(); ',
             expected='Foo();'),
    UnitCase('trimSpace-2', 'trimSpace.test.ts', 'trimSpace / should not remove trailing space if filling in line',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document='let foo = sum(║baz)',
             completion='bar, ',
             expected='bar, '),
    UnitCase('trimSpace-3', 'trimSpace.test.ts', 'trimSpace / should remove trailing space if filling in line with suffix starts with space',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document='let foo = sum(║ baz)',
             completion='bar, ',
             expected='bar,'),
    UnitCase('trimSpace-4', 'trimSpace.test.ts', 'trimSpace / should not remove leading space if current line is blank',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document='function sum(a, b) {\n║\n}',
             completion='  return a + b;',
             expected='  return a + b;'),
    UnitCase('trimSpace-5', 'trimSpace.test.ts', 'trimSpace / should remove leading space if current line is not blank and ends with space',
             language='javascript', indentation=None, keep_block=False, kind='eq',
             document='let foo = ║',
             completion=' sum(bar, baz);',
             expected='sum(bar, baz);'),
]


def context(document: str, language: str, indentation: str | None = None) -> CompletionContext:
    cursor = document.index("║")
    return CompletionContext.of(document[:cursor], document[cursor + 1:], language, indentation)


def run_rule(case: UnitCase) -> Any:
    ctx = context(case.document, case.language, case.indentation)
    if case.id.startswith("calculateReplaceRangeByBracketStack"):
        return filters.replace_range_by_bracket_stack(case.completion, ctx)
    if case.id.startswith("limitScopeByIndentation"):
        return filters.limit_scope_by_indentation(case.completion, ctx, case.keep_block)
    rules = {"dropBlank": filters.drop_blank, "dropDuplicated": filters.drop_duplicated, "formatIndentation": filters.format_indentation,
             "removeDuplicatedBlockClosingLine": filters.remove_duplicated_block_closing_line,
             "removeLineEndsWithRepetition": filters.remove_line_ends_with_repetition,
             "removeRepetitiveBlocks": filters.remove_repetitive_blocks, "removeRepetitiveLines": filters.remove_repetitive_lines,
             "trimMultiLineInSingleLineMode": filters.trim_multi_line_in_single_line_mode, "trimSpace": filters.trim_space}
    return rules[case.id.rsplit("-", 1)[0]](case.completion, ctx)


@pytest.mark.parametrize("case", UNIT_CASES, ids=[c.id for c in UNIT_CASES])
def test_rule_matches_agent_unit_test(case: UnitCase) -> None:
    """clients/tabby-agent/src/postprocess/<case.file> at 1.5.0."""
    got = run_rule(case)
    if case.kind == "null":
        assert got is None
    elif case.kind == "not":
        assert got != case.expected
    else:
        assert got == case.expected


def test_defaults_are_agent_config_defaults() -> None:
    """src/AgentConfig.ts defaultAgentConfig.postprocess at 1.5.0 (every other key refused there)."""
    assert tc.state_options(None, agent_state(V)) == {
        "postprocess.limitScope.experimentalSyntax": False,
        "postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine": False,
        "postprocess.calculateReplaceRange.experimentalSyntax": False,
    }


def test_unknown_option_is_an_error() -> None:
    with pytest.raises(TabbyInputError):
        complete(EditorInput(prefix="a = ", suffix="", options={"postprocess.limitScope.nope": True}), "1", version=V)


# Our own cases for the JavaScript semantics the port keeps.

def test_repetition_regex_counts_utf16_units_and_ignores_a_line_that_keeps_its_newline() -> None:
    """removeLineEndsWithRepetition.ts: /(.{3,}?)\\1{5,}$/ without the m flag; a line piece that
    still ends with "\\n" (blank lines follow) cannot end in the repeated pattern."""
    ctx = context("x = ║", "javascript")
    assert filters.remove_line_ends_with_repetition("ab\n" + "abc" * 6, ctx) == "ab"
    assert filters.remove_line_ends_with_repetition("ab\n" + "abc" * 6 + "\n\n", ctx) == "ab\n" + "abc" * 6 + "\n\n"
    # "😀x" is three UTF-16 units: six repeats match in JS, as here.
    assert filters.remove_line_ends_with_repetition("ab\n" + "😀x" * 6, ctx) == "ab"
    assert filters.remove_line_ends_with_repetition("😀" * 5, ctx) == "😀" * 5  # ten units, a 2-unit pattern x5


def test_distance_counts_utf16_units() -> None:
    """fast-levenshtein compares charCodeAt: an astral character is two units from nothing."""
    assert filters._within("😀", "", 2) and not filters._within("😀", "", 1)
    assert filters._within("kitten", "sitting", 3) and not filters._within("kitten", "sitting", 2.9)


def test_blocks_split_keeps_js_split_captures() -> None:
    """removeRepetitiveBlocks.ts: String.split with a capturing group keeps the whitespace between
    blocks as items; when the run starts after the first block the kept blocks are joined
    without the blank lines that separated them."""
    ctx = context("║", "javascript")
    raw = "intro();\n\n" + "".join(f"emit Transfer(from, to, {n});\n  \n" for n in range(1, 5)) + "emit Tr"
    assert filters.remove_repetitive_blocks(raw, ctx) == "intro();emit Transfer(from, to, 1);"


def test_unpaired_auto_closing_chars() -> None:
    """src/utils.ts findUnpairedAutoClosingChars: closers left open, quotes toggled."""
    assert tabby_context.find_unpaired_auto_closing_chars("a)]") == [")", "]"]
    assert tabby_context.find_unpaired_auto_closing_chars("f(x)") == []
    assert tabby_context.find_unpaired_auto_closing_chars('"a", (b') == ["("]
    assert tabby_context.find_unpaired_auto_closing_chars("<App x={y} />") == []
    assert tabby_context.find_unpaired_auto_closing_chars("tml>") == [">"]


def test_fill_in_line_mode_and_replace_range() -> None:
    """CompletionContext.ts mode, trimMultiLineInSingleLineMode.ts and the bracket stack together."""
    inp = EditorInput(prefix="uint x = max(", suffix="a, b);\n", language="solidity")
    shown = complete(inp, "y, a, b);\nuint z;", version=V)
    assert (shown.text, shown.multiline, shown.replace_after) == ("y, ", False, 0)
    assert [s.step for s in shown.trace] == ["trimMultiLineInSingleLineMode"]
    inp = EditorInput(prefix="require(owner == msg.sender", suffix=")\n", language="solidity")
    shown = complete(inp, ', "not owner");', version=V)
    assert (shown.text, shown.multiline, shown.replace_after) == (', "not owner");', True, 1)
    assert shown.trace[-1].step == "calculateReplaceRange"
    assert shown.trace[-1].source == SOURCE + "calculateReplaceRangeByBracketStack.ts"


def test_blank_prefix_sends_nothing() -> None:
    """TabbyAgent.ts: no segments for a blank prefix, no request, nothing shown."""
    assert complete(EditorInput(prefix="\n  \n", suffix="x"), "y", version=V).text is None


def test_empty_raw_is_dropped() -> None:
    assert complete(EditorInput(prefix="a = ", suffix=""), "", version=V).text is None


def test_stream_stop_is_none() -> None:
    assert tc.stream_stop(EditorInput(prefix="a", suffix="")) is None


def test_the_repetition_test_is_the_agents_regex_without_its_backtracking() -> None:
    """removeLineEndsWithRepetition's two regexes, tested by length and repeats: the same answer
    as the regexes on many short lines (pieces with line terminators in them too), and an
    answer at all on a 100,000-character line, where the regexes backtrack for hours."""
    import random
    import re

    from replay.editors.tabby.filters import ends_with_repetition

    regexes = {(3, 6): re.compile("([^\n\r\u2028\u2029]{3,}?)\\1{5,}\\Z"),
               (10, 4): re.compile("([^\n\r\u2028\u2029]{10,}?)\\1{3,}\\Z")}
    rng = random.Random(5)
    for _ in range(20_000):
        alpha = rng.choice(["ab", "abc", "a\nb", "xy\r", "a\u2028b"])
        piece = "".join(rng.choice(alpha) for _ in range(rng.randint(1, 12)))
        line = ("".join(rng.choice(alpha) for _ in range(rng.randint(0, 8))) + piece * rng.randint(0, 8)
                + "".join(rng.choice(alpha) for _ in range(rng.randint(0, 2))))
        for (shortest, times), regex in regexes.items():
            assert ends_with_repetition(line, shortest, times) == bool(regex.search(line)), (line, shortest)
    assert not ends_with_repetition("x" * 100_000 + "fmt.Println(n)", 3, 6)
    assert ends_with_repetition("y = " + "abc" * 6, 3, 6) and not ends_with_repetition("y = " + "abc" * 5, 3, 6)
