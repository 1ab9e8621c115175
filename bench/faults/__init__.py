"""The long fault suites: kills, full disks, huge inputs, with the records counted after."""
