! jacobi.f90: examples/jacobi's stage 1 in Fortran with use mpi: the same
! grid, decomposition, sweep and verification (examples/jacobi/grid.go),
! halo rows by MPI_Sendrecv and the residual by MPI_Allreduce(MPI_MAX),
! so it prints the same last line for the same grid:
!     stage=1 residual=R checksum=C
! Arguments: N ITERS (default 256 100). Build with -fwrapv: the checksum
! is a wrapping sum of the values' bit patterns.
program jacobi
  use mpi
  implicit none
  integer :: ierr, rank, np, n, iters, lo, hi, nrows, up, down, k, it, i, j, first, last
  double precision, allocatable :: buf(:, :, :) ! (column j, local row i, buffer k)
  double precision :: diff, v, res
  integer(kind=8) :: sum
  character(len=32) :: arg
  character(len=40) :: rs

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  n = 256
  iters = 100
  if (command_argument_count() >= 2) then
    call get_command_argument(1, arg)
    read (arg, *) n
    call get_command_argument(2, arg)
    read (arg, *) iters
  end if
  call rows(rank, lo, hi)
  nrows = hi - lo
  allocate (buf(0:n - 1, 0:nrows + 1, 0:1))
  do k = 0, 1
    do i = 0, nrows + 1
      do j = 0, n - 1
        buf(j, i, k) = 0
        if (lo - 1 + i == 0 .or. lo - 1 + i == n - 1 .or. j == 0 .or. j == n - 1) &
          buf(j, i, k) = boundary(lo - 1 + i, j)
      end do
    end do
  end do
  up = rank - 1
  if (rank == 0) up = MPI_PROC_NULL
  down = rank + 1
  if (rank == np - 1) down = MPI_PROC_NULL
  k = 0
  res = 0
  do it = 1, iters
    call MPI_Sendrecv(buf(:, 1, k), n, MPI_DOUBLE_PRECISION, up, 0, buf(:, nrows + 1, k), n, &
                      MPI_DOUBLE_PRECISION, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(buf(:, nrows, k), n, MPI_DOUBLE_PRECISION, down, 1, buf(:, 0, k), n, &
                      MPI_DOUBLE_PRECISION, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    diff = 0
    do i = 1, nrows
      do j = 1, n - 2
        v = 0.25d0 * (buf(j, i - 1, k) + buf(j, i + 1, k) + buf(j - 1, i, k) + buf(j + 1, i, k))
        buf(j, i, 1 - k) = v
        diff = max(diff, abs(v - buf(j, i, k)))
      end do
    end do
    call MPI_Allreduce(MPI_IN_PLACE, diff, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    res = diff
    k = 1 - k
  end do
  first = 1
  last = nrows
  if (lo == 1) first = 0
  if (hi == n - 1) last = nrows + 1
  sum = 0
  do i = first, last
    do j = 0, n - 1
      sum = sum + transfer(buf(j, i, k), sum)
    end do
  end do
  call MPI_Allreduce(MPI_IN_PLACE, sum, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (arg, '(z16.16)') sum
    call gformat(res, rs)
    print '(4a)', 'stage=1 residual=', trim(rs), ' checksum=', lower(arg(1:16))
  end if
  call MPI_Finalize(ierr)
contains
  ! rows: the interior rows [lo, hi) rank r owns, as grid.go's rows.
  subroutine rows(r, lo, hi)
    integer, intent(in) :: r
    integer, intent(out) :: lo, hi
    integer :: base, extra
    base = (n - 2) / np
    extra = mod(n - 2, np)
    lo = 1 + r * base + min(r, extra)
    hi = lo + base
    if (r < extra) hi = hi + 1
  end subroutine

  double precision function boundary(i, j)
    integer, intent(in) :: i, j
    double precision :: t
    boundary = 0
    if (i == 0) then
      t = dble(j) / dble(n - 1)
      boundary = 4 * t * (1 - t)
    end if
  end function

  ! gformat writes x as C's and Go's %.17g: 17 significant digits, no
  ! trailing zeros, exponent form below 1e-4 or from 1e17.
  subroutine gformat(x, s)
    double precision, intent(in) :: x
    character(len=*), intent(out) :: s
    character(len=32) :: e
    character(len=17) :: d
    integer :: ex, nd
    if (x == 0) then
      s = '0'
      return
    end if
    write (e, '(es24.16e3)') abs(x)
    e = adjustl(e)
    d = e(1:1)//e(3:18)
    read (e(20:23), *) ex
    nd = len_trim(d)
    do while (nd > 1 .and. d(nd:nd) == '0')
      nd = nd - 1
    end do
    s = ''
    if (x < 0) s = '-'
    if (ex < -4 .or. ex >= 17) then
      if (nd > 1) then
        s = trim(s)//d(1:1)//'.'//d(2:nd)
      else
        s = trim(s)//d(1:1)
      end if
      write (e, '(i2.2)') abs(ex)
      if (ex < 0) then
        s = trim(s)//'e-'//trim(e)
      else
        s = trim(s)//'e+'//trim(e)
      end if
    else if (ex < 0) then
      s = trim(s)//'0.'//repeat('0', -ex - 1)//d(1:nd)
    else if (nd > ex + 1) then
      s = trim(s)//d(1:ex + 1)//'.'//d(ex + 2:nd)
    else
      s = trim(s)//d(1:nd)//repeat('0', ex + 1 - nd)
    end if
  end subroutine

  function lower(s) result(r)
    character(len=*), intent(in) :: s
    character(len=len(s)) :: r
    integer :: i
    r = s
    do i = 1, len(s)
      if (r(i:i) >= 'A' .and. r(i:i) <= 'Z') r(i:i) = achar(iachar(r(i:i)) + 32)
    end do
  end function
end program
