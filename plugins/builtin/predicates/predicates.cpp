// placeholder: predicates plugin (being written)
