"""The shipped ONNX models (tile finder and classifier) and their card; installed as ``mahjong_models``."""
