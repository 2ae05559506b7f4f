# Message sizes of the R4 storage mix (Azure §1.3: 8 KB to 1 MB), as
# "size cumulative_percent" lines; the shape is rdmasim's choice.
8192 0
8192 40
65536 70
262144 90
1048576 100
