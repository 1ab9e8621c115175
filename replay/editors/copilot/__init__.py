"""GitHub Copilot's completion client (VS Code's, as `@vscode/chat-lib` publishes it headless).

- `profile`: the prompt side (`render`, `render_session`): layout.py (the split-context prompt,
  budgets, elision), similar.py (similar-file snippets), request.py (the request body and the
  multiline decision), session.py (the state carried between requests), tokens.py (o200k as
  the client counts), uris.py (how the client names a file: its path in the workspace folder,
  else its file name), languages.py (the language it names a document by: the file name's,
  not the editor's id; C grouped with C++).
- `completion`: the answer side (what the client shows of a model's text); formatting.py, the
  item re-indented to the editor's formatting options.
"""
