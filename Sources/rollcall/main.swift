print("rollcall")
