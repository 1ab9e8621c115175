"""The completions cache as chat-lib keeps it (completions_cache.py): a radix trie walked along
one path (helpers/radix.ts), and the completed requests the async manager answers from."""

from __future__ import annotations

from replay.editors.copilot.answer import Choice
from replay.editors.copilot.completions_cache import CompletedRequests, CompletionsCache, RadixTrie
from replay.editors.copilot.session import ClientState
from replay.editors.inputs import parse_object


def _texts(choices: list[Choice]) -> list[str]:
    return [c.text for c in choices]


def test_the_longest_kept_prefix_comes_first() -> None:
    cache = CompletionsCache()
    cache.append("x = ", "", Choice("max(a, b)", ()))
    cache.append("x = ma", "", Choice("x(a, c)", ()))
    assert _texts(cache.find("x = max(", "")) == ["a, c)", "a, b)"]


def test_choices_of_one_prefix_are_kept_in_order_and_by_suffix() -> None:
    cache = CompletionsCache()
    cache.append("x = ", "s", Choice("1 + 2", ()))
    cache.append("x = ", "s", Choice("1 + 3", ()))
    cache.append("x = ", "t", Choice("1 + 4", ()))
    assert _texts(cache.find("x = 1 +", "s")) == [" 2", " 3"]
    assert _texts(cache.find("x = 1 + 2", "s")) == [] and _texts(cache.find("x = 1 +", "u")) == []


def test_a_key_added_after_two_branches_is_not_seen_down_the_other_branch() -> None:
    """radix.ts: "x = m" splits only the first sibling edge ("x = ma"); a lookup that walks down
    "x = mi" never passes the node that holds "x = m"."""
    cache = CompletionsCache()
    cache.append("x = ma", "", Choice("x(1)", ()))
    cache.append("x = mi", "", Choice("n(2)", ()))
    cache.append("x = m", "", Choice("in(3)", ()))
    assert _texts(cache.find("x = min(", "")) == ["2)"]  # not "3)" as well
    assert _texts(cache.find("x = max(", "")) == ["1)"]
    # added in the other order the shorter key is on every path
    other = CompletionsCache()
    other.append("x = m", "", Choice("in(3)", ()))
    other.append("x = ma", "", Choice("x(1)", ()))
    other.append("x = mi", "", Choice("n(2)", ()))
    assert _texts(other.find("x = min(", "")) == ["2)", "3)"]


def test_the_least_recently_used_prefix_goes_past_the_limit() -> None:
    trie: RadixTrie[int] = RadixTrie(max_size=3)
    for n, key in enumerate(("a", "b", "c")):
        trie.set(key, n)
    trie.find_all("a")  # read: now the most recent
    trie.set("d", 3)
    assert [trie.find_all(k) for k in ("a", "b", "c", "d")] == [[("", 0)], [], [("", 2)], [("", 3)]]


def test_the_async_manager_answers_with_the_first_completed_request_that_goes_on() -> None:
    requests = CompletedRequests()
    requests.add("x = ", "", Choice("min(a, b)", ()))
    requests.add("x = m", "", Choice("ax(a, b)", ()))
    requests.add("x = mi", "", Choice("n(c, d)", ()))
    found = requests.first_match("x = min(", "")
    assert found is not None and found.text == "a, b)"  # the oldest candidate, not the longest prefix
    assert requests.first_match("x = min(", "other") is None
    requests = CompletedRequests()
    requests.add("y = ", "", Choice("1  ", ()))
    assert requests.first_match("y = 1", "") is None  # its choice, trimmed at the end, does not go beyond


def _inp(prefix: str):
    return parse_object({"prefix": prefix, "suffix": "\n", "language": "python", "filepath": "a.py"})


SINGLE_LINE = {"stop": ["\n"], "suffix": "", "n": 1}  # what `answer` reads of a body


def _sent(state: ClientState, prefix: str, raw: str) -> None:
    """A request sent at `prefix`, its answer streamed in chunks of 3 characters."""
    state.cached(prefix, "")
    state.answer(_inp(prefix), SINGLE_LINE, raw, [(min(end, len(raw)), 0.0) for end in range(3, len(raw) + 3, 3)])


def test_a_line_the_cache_finds_only_a_dropped_choice_for_shows_nothing_and_sends_nothing() -> None:
    """The branches of the trie test, the longer branch's choice repetitive: the lookup down that
    branch finds only it (the shorter key's choice is not seen), the repetition filter drops it,
    and the client shows nothing without asking (ghostText.ts: local choices all dropped)."""
    state = ClientState()
    _sent(state, "limit = ma", "x(value, 0)\n")
    _sent(state, "limit = mi", "n(v" + ", 0" * 12)
    _sent(state, "limit = m", "in(value, 50)\n")
    _sent(state, "limit = q", "uota\n")
    assert state.cached("limit = min(v", "")
    assert state.answer(_inp("limit = min(v"), None, None).text is None
    # one more character: the cache finds nothing, the async manager the shorter key's request
    assert state.cached("limit = min(va", "")
    shown = state.answer(_inp("limit = min(va"), None, None)
    assert shown.text == "limit = min(value, 50)" and shown.trace[0].step == "AsyncCompletionManager"


def test_a_cycling_request_is_kept_in_the_cache_but_not_by_the_async_manager() -> None:
    """ghostText.ts queues only a request that is not cycling with the async manager."""
    state = ClientState()
    state.cached("limit = ", "")
    state.answer(_inp("limit = "), {**SINGLE_LINE, "n": 3}, "min(a, b)\n")
    assert _texts(state.from_cache("limit = m", "")) == ["in(a, b)"] and state.completed.requests == []
    _sent(state, "limit = ", "max(a, b)\n")
    assert _texts(state.from_async("limit = m", "")) == ["ax(a, b)"]
