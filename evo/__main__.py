from evo.cli import main

raise SystemExit(main())
