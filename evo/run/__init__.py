"""Running evolution: the config, the evaluation backends, the job they run, and the generation loop."""
