! fmix.f90 (with fmix.c): handles between a Fortran main and a C library
! routine. Fortran passes its INTEGER handles and status to C, which
! converts them with MPI_X_f2c/c2f and MPI_Status_f2c and hands back a
! communicator it made. Prints "mix ok" on every rank.
program fmix
  use mpi
  implicit none
  integer :: ierr, rank, np, dt, st(MPI_STATUS_SIZE), newcomm, ok, n
  integer :: x
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call MPI_Type_contiguous(3, MPI_INTEGER, dt, ierr)
  call MPI_Type_commit(dt, ierr)
  x = rank
  call MPI_Sendrecv_replace(x, 1, MPI_INTEGER, mod(rank + 1, np), 9, mod(rank + np - 1, np), 9, &
                            MPI_COMM_WORLD, st, ierr)
  ok = 0
  call cside(MPI_COMM_WORLD, dt, st, newcomm, ok)
  if (ok /= 1) then
    print '(a,i0)', 'FAILED: C side check ', ok
    flush(6)
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Comm_size(newcomm, n, ierr)
  if (ierr /= MPI_SUCCESS .or. n /= np) then
    print '(a)', 'FAILED: communicator from C'
    flush(6)
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Comm_free(newcomm, ierr)
  call MPI_Type_free(dt, ierr)
  print '(a)', 'mix ok'
  call MPI_Finalize(ierr)
end program
