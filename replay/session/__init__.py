"""An editor driven through a typing session in virtual time (`fimreplay session`): the session
line in and the record out (format), the clock, document and scripted server the editor's
live client acts through (simulate)."""
