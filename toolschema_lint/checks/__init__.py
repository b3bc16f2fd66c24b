"""Check modules, one per rule family. Each check is registered with `@check(RULE_ID)`."""
