/*
 * gdb's auto-loading of the mpidbg extension: a .debug_gdb_scripts entry
 * naming the script, which gdb looks for in its auto-load scripts
 * directories ("info auto-load python-scripts"; make install puts
 * extensions/gdb/mpidbg-gdb.py there). Entry format (gdb manual, "The
 * .debug_gdb_scripts section"): the byte 1 (a Python file name), the
 * name, a NUL. "MS" with entry size 1 lets the linker merge duplicates.
 */
__asm__(".pushsection \".debug_gdb_scripts\", \"MS\",@progbits,1\n"
        ".byte 1\n"
        ".asciz \"mpidbg-gdb.py\"\n"
        ".popsection\n");
