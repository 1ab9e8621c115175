"""Capture logs -> CaptureRecord / OutcomeEvent, one module per log format."""
