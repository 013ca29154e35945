"""How a started bot is confined: the sandbox around its command (`sandbox`: bubblewrap
namespaces, a user of its own, kernel limits), its system-call filter (`seccomp`) and
its control group (`cgroups`: memory, processes and CPU for the bot as a whole)."""
