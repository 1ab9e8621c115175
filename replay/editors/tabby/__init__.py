"""The Tabby profile: what tabby-agent sends, the prompt the Tabby server builds from it, and
what tabby-agent shows of the model's answer.

- options.py: the settings of both stages, keyed by Tabby's own config paths;
- client.py: tabby-agent's request body (the lines it cuts around the cursor);
- server.py: the server's prompt, clipping and stop words, by Tabby release;
- languages.py: the server's language table (line comments, top-level keywords);
- profile.py: the whole path for one cursor, and the logged prompt rebuilt from a capture;
- completion.py: tabby-agent's completion stage: the filter chains in the agent's order;
- context.py: the completion context the filters read (single/multi-line mode, line helpers);
- filters.py: the post-processing filters, one per source file of the agent.
"""

from replay.editors.tabby.profile import logged_prompt, render

__all__ = ["logged_prompt", "render"]
