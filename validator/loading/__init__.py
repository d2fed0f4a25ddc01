"""Loading: files on disk -> plain, validated data that remembers where each value was written."""
