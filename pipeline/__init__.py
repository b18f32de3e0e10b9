"""Code the Snakefile's rules call: word list → tiles → anagram buckets → keys → manifest."""
