"""``python -m resource_pool ...`` runs the ``resource-pool`` command."""

from ._cli import main

main()
