"""Values: dtypes, Tensor, TensorShape, Variable, errors and nested structures."""
