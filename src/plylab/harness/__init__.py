"""The harness: plan -> executor -> session -> store."""
