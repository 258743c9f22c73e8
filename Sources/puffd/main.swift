print("puffd")
