! The C interface (redist/c.h) from Fortran through the module redist (include/redist/redist.f90):
! a 1-D GEN_BLOCK -> CYCLIC(4) and a 2-D (COLLAPSED, CYCLIC(2)) -> (COLLAPSED, BLOCK)
! redistribution of doubles, checked element by element against index formulas written here, the
! global indices of the CYCLIC(4) layout, the version, one error read back as a Fortran string, and
! INDIRECT layouts: a halo (BLOCK and 1-3 ghosts per side) filled from BLOCK, partial sums of it
! added into BLOCK, INDIRECT -> INDIRECT, and an index no rank lists refused on every rank; and a
! scaled transpose (redist_plan_create_op_f, redist_plan_execute_scaled).

program capi_f
  use iso_c_binding
  use redist
  implicit none
  include 'mpif.h'  ! not `use mpi`: Debian's ompi-fort.pc does not name the directory of mpi.mod
  integer :: ierr, rank, nprocs, failures, total, p
  integer(c_int64_t) :: n, first, ns, nd, l
  integer(c_int64_t), allocatable, target :: sizes(:), g(:)
  type(redist_dim) :: dims(2)
  type(c_ptr) :: from, to, plan
  real(c_double), allocatable, target :: a(:), b(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  failures = 0

  ! 1-D: GEN_BLOCK (process p holds 2 + 3p elements) -> CYCLIC(4).
  allocate (sizes(nprocs))
  n = 0
  first = 0
  do p = 0, nprocs - 1
    sizes(p + 1) = 2 + 3 * p
    if (p < rank) first = first + sizes(p + 1)
    n = n + sizes(p + 1)
  end do
  call layouts(1, [redist_dim(REDIST_GEN_BLOCK, n, 0_c_int64_t, c_loc(sizes), nprocs, 0)], &
               [redist_dim(REDIST_CYCLIC, n, 4_c_int64_t, c_null_ptr, nprocs, 0)], from, to, ns, nd)
  allocate (a(max(ns, 1_c_int64_t)), b(max(nd, 1_c_int64_t)))
  do l = 1, ns
    a(l) = real(first + l - 1, c_double)
  end do
  b = -1
  call must(redist_plan_create_f(from, to, MPI_COMM_WORLD, 8_c_size_t, plan))
  call must(redist_plan_execute(plan, c_loc(a), c_loc(b)))
  do l = 0, nd - 1
    if (abs(b(l + 1) - real(((l / 4) * nprocs + rank) * 4 + mod(l, 4_c_int64_t), c_double)) > 0) failures = failures + 1
  end do
  ! The global indices of CYCLIC(4) on this rank: b holds element g(l + 1) at l.
  allocate (g(max(nd, 1_c_int64_t)))
  call must(redist_layout_global_indices_f(to, MPI_COMM_WORLD, 0, g))
  do l = 0, nd - 1
    if (g(l + 1) /= ((l / 4) * nprocs + rank) * 4 + mod(l, 4_c_int64_t)) failures = failures + 1
    if (abs(b(l + 1) - real(g(l + 1), c_double)) > 0) failures = failures + 1
  end do
  if (redist_layout_global_indices_f(to, MPI_COMM_WORLD, 1, g) /= REDIST_ERROR_ARGUMENT) failures = failures + 1
  if (index(redist_error_string(), 'dim must be in [0, 1) (got 1)') == 0) then
    print *, 'unexpected message: ', redist_error_string()
    failures = failures + 1
  end if
  if (redist_version_string() /= REDIST_MODULE_VERSION) then
    print *, 'library version ', redist_version_string(), ', module ', REDIST_MODULE_VERSION
    failures = failures + 1
  end if
  call must(redist_plan_free(plan))
  call must(redist_layout_free(from))
  call must(redist_layout_free(to))
  deallocate (a, b)

  ! 2-D on 1 x P: (COLLAPSED rows, CYCLIC(2) columns) -> (COLLAPSED, BLOCK), column-major.
  call two_d()

  ! INDIRECT layouts.
  call indirect_case()

  ! y = 2 transpose(x) + y: x (COLLAPSED, CYCLIC(2)) 7 x 23 -> y (CYCLIC(2) over P, COLLAPSED) 23 x 7.
  call transpose_case()

  ! An error: a CYCLIC block of 0, read back as a Fortran string that names the parameter.
  dims(1) = redist_dim(REDIST_CYCLIC, 10_c_int64_t, 0_c_int64_t, c_null_ptr, nprocs, 0)
  if (redist_layout_create(1, dims, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0_c_int64_t, from) == REDIST_SUCCESS) &
    failures = failures + 1
  if (index(redist_error_string(), 'dims[0].block must be > 0') == 0) then
    print *, 'unexpected message: ', redist_error_string()
    failures = failures + 1
  end if

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a, i0, a)', 'capi_f: ', total, ' failures on ', nprocs, ' processes'
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1

contains

  subroutine must(code)
    integer(c_int), intent(in) :: code
    if (code /= REDIST_SUCCESS) then
      print *, 'rank ', rank, ': ', redist_error_string()
      failures = failures + 1
    end if
  end subroutine must

  ! The layouts df -> dt (column-major storage on row-major grids from rank 0) and this rank's
  ! local sizes of both.
  subroutine layouts(ndims, df, dt, from, to, ns, nd)
    integer(c_int), intent(in) :: ndims
    type(redist_dim), intent(in) :: df(ndims), dt(ndims)
    type(c_ptr), intent(out) :: from, to
    integer(c_int64_t), intent(out) :: ns, nd
    call must(redist_layout_create(ndims, df, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0_c_int64_t, from))
    call must(redist_layout_create(ndims, dt, REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0_c_int64_t, to))
    call must(redist_layout_local_size_f(from, MPI_COMM_WORLD, ns))
    call must(redist_layout_local_size_f(to, MPI_COMM_WORLD, nd))
  end subroutine layouts

  subroutine two_d()
    integer(c_int64_t), parameter :: m = 7, nc = 23
    integer(c_int64_t) :: ns2, nd2, i, j, gj, cols, per
    type(c_ptr) :: f2, t2, p2
    real(c_double), allocatable, target :: x(:), y(:)
    type(redist_dim) :: rows
    rows = redist_dim(3, m, 0_c_int64_t, c_null_ptr, 1, 0)  ! REDIST_COLLAPSED
    call layouts(2, [rows, redist_dim(REDIST_CYCLIC, nc, 2_c_int64_t, c_null_ptr, nprocs, 0)], &
                 [rows, redist_dim(REDIST_BLOCK, nc, 0_c_int64_t, c_null_ptr, nprocs, 0)], f2, t2, ns2, nd2)
    allocate (x(max(ns2, 1_c_int64_t)), y(max(nd2, 1_c_int64_t)))
    cols = ns2 / m
    do j = 0, cols - 1
      gj = ((j / 2) * nprocs + rank) * 2 + mod(j, 2_c_int64_t)
      do i = 0, m - 1
        x(1 + i + j * m) = real(i * 1000 + gj, c_double)
      end do
    end do
    y = -1
    call must(redist_plan_create_f(f2, t2, MPI_COMM_WORLD, 8_c_size_t, p2))
    call must(redist_plan_execute(p2, c_loc(x), c_loc(y)))
    per = (nc + nprocs - 1) / nprocs
    do j = 0, nd2 / m - 1
      do i = 0, m - 1
        if (abs(y(1 + i + j * m) - real(i * 1000 + rank * per + j, c_double)) > 0) failures = failures + 1
      end do
    end do
    call must(redist_plan_free(p2))
    call must(redist_layout_free(f2))
    call must(redist_layout_free(t2))
  end subroutine two_d

  subroutine transpose_case()
    integer(c_int64_t), parameter :: m = 7, nc = 23
    integer(c_int64_t) :: ns2, nd2, i, j, gj, rows
    type(c_ptr) :: f2, t2, p2
    real(c_double), allocatable, target :: x(:), y(:)
    real(c_double), target :: alpha, beta
    type(redist_dim) :: whole
    whole = redist_dim(REDIST_COLLAPSED, m, 0_c_int64_t, c_null_ptr, 1, 0)
    call layouts(2, [whole, redist_dim(REDIST_CYCLIC, nc, 2_c_int64_t, c_null_ptr, nprocs, 0)], &
                 [redist_dim(REDIST_CYCLIC, nc, 2_c_int64_t, c_null_ptr, nprocs, 0), whole], f2, t2, ns2, nd2)
    allocate (x(max(ns2, 1_c_int64_t)), y(max(nd2, 1_c_int64_t)))
    do j = 0, ns2 / m - 1
      gj = ((j / 2) * nprocs + rank) * 2 + mod(j, 2_c_int64_t)
      do i = 0, m - 1
        x(1 + i + j * m) = real(i * 1000 + gj, c_double)
      end do
    end do
    rows = nd2 / m  ! y's local rows: the same global indices as x's local columns
    do j = 0, m - 1
      do i = 0, rows - 1
        y(1 + i + j * rows) = real(j, c_double)
      end do
    end do
    alpha = 2
    beta = 1
    call must(redist_plan_create_op_f(f2, t2, MPI_COMM_WORLD, REDIST_DOUBLE, REDIST_OP_TRANSPOSE, p2))
    call must(redist_plan_execute_scaled(p2, c_loc(alpha), c_loc(x), c_loc(beta), c_loc(y)))
    do j = 0, m - 1
      do i = 0, rows - 1
        gj = ((i / 2) * nprocs + rank) * 2 + mod(i, 2_c_int64_t)
        if (abs(y(1 + i + j * rows) - (2 * real(j * 1000 + gj, c_double) + real(j, c_double))) > 0) then
          failures = failures + 1
        end if
      end do
    end do
    call must(redist_plan_free(p2))
    call must(redist_layout_free(f2))
    call must(redist_layout_free(t2))
  end subroutine transpose_case

  ! This rank's part of BLOCK over n: [lo, hi).
  subroutine block_of(r, n, lo, hi)
    integer, intent(in) :: r
    integer(c_int64_t), intent(in) :: n
    integer(c_int64_t), intent(out) :: lo, hi
    integer(c_int64_t) :: per
    per = (n + nprocs - 1) / nprocs
    lo = min(n, r * per)
    hi = min(n, lo + per)
  end subroutine block_of

  ! Whether rank r's halo (its block, 1 + mod(r, 3) ghosts on the left, 1 + mod(r + 1, 3) on the
  ! right, inside [0, n)) holds global index g.
  logical function halo_holds(r, n, g)
    integer, intent(in) :: r
    integer(c_int64_t), intent(in) :: n, g
    integer(c_int64_t) :: lo, hi
    call block_of(r, n, lo, hi)
    halo_holds = g >= lo - (1 + mod(r, 3)) .and. g < hi + (1 + mod(r + 1, 3)) .and. g >= 0 .and. g < n
  end function halo_holds

  integer(c_int64_t) function holders(n, g)
    integer(c_int64_t), intent(in) :: n, g
    integer :: r
    holders = 0
    do r = 0, nprocs - 1
      if (halo_holds(r, n, g)) holders = holders + 1
    end do
  end function holders

  subroutine indirect_case()
    integer(c_int64_t) :: n, lo, hi, nh, nsc, k, x, hole
    integer(c_int64_t), allocatable, target :: halo(:), scat(:), gi(:), ones(:), cnt(:), holed(:)
    real(c_double), allocatable, target :: xa(:), xu(:), xw(:)
    type(c_ptr) :: lb, lh, lhs, ls, lholed, pl
    integer(c_int) :: rc
    character(len=32) :: want
    character(len=:), allocatable :: message
    n = 5 * nprocs + 3
    call block_of(rank, n, lo, hi)
    allocate (halo(n), scat(n), gi(n), holed(max(n, 1_c_int64_t)))
    ! The halo: its block, then the left ghosts from the nearest down, then the right ones.
    nh = 0
    do x = lo, hi - 1
      nh = nh + 1
      halo(nh) = x
    end do
    do x = lo - 1, max(0_c_int64_t, lo - (1 + mod(rank, 3))), -1
      nh = nh + 1
      halo(nh) = x
    end do
    do x = hi, min(n - 1, hi + mod(rank + 1, 3))
      nh = nh + 1
      halo(nh) = x
    end do
    ! Scattered: the g with mod(7 g + 3, P) = rank, from the largest down.
    nsc = 0
    do x = n - 1, 0, -1
      if (mod(7 * x + 3, int(nprocs, c_int64_t)) == rank) then
        nsc = nsc + 1
        scat(nsc) = x
      end if
    end do
    call must(redist_layout_create(1, [redist_dim(REDIST_BLOCK, n, 0_c_int64_t, c_null_ptr, nprocs, 0)], &
                                   REDIST_ROW_MAJOR, 0, REDIST_COLUMN_MAJOR, 0_c_int64_t, lb))
    call must(redist_layout_create_indirect(n, halo, nh, REDIST_INDIRECT, lh))
    call must(redist_layout_create_indirect(n, halo, nh, REDIST_INDIRECT_SUM, lhs))
    call must(redist_layout_create_indirect(n, scat, nsc, REDIST_INDIRECT, ls))
    call must(redist_layout_local_size_f(lh, MPI_COMM_WORLD, k))
    if (k /= nh) failures = failures + 1
    gi = -7
    call must(redist_layout_global_indices_f(lh, MPI_COMM_WORLD, 0, gi))
    if (any(gi(1:nh) /= halo(1:nh))) failures = failures + 1
    if (nh < n) then
      if (gi(nh + 1) /= -7) failures = failures + 1
    end if

    ! BLOCK -> INDIRECT: every holder, ghosts too, receives 0.5 + 3 g.
    allocate (xa(max(hi - lo, 1_c_int64_t)), xu(max(nh, 1_c_int64_t)), xw(max(nsc, 1_c_int64_t)))
    do x = lo, hi - 1
      xa(x - lo + 1) = 0.5d0 + 3 * x
    end do
    xu = -1
    call must(redist_plan_create_f(lb, lh, MPI_COMM_WORLD, 8_c_size_t, pl))
    call must(redist_plan_execute(pl, c_loc(xa), c_loc(xu)))
    do k = 1, nh
      if (abs(xu(k) - (0.5d0 + 3 * halo(k))) > 0) then
        print *, 'rank ', rank, ': BLOCK -> INDIRECT at ', halo(k), ': ', xu(k)
        failures = failures + 1
      end if
    end do
    call must(redist_plan_free(pl))

    ! INDIRECT -> INDIRECT: the halo's copies into the scattered list.
    xw = -1
    call must(redist_plan_create_f(lh, ls, MPI_COMM_WORLD, 8_c_size_t, pl))
    call must(redist_plan_execute(pl, c_loc(xu), c_loc(xw)))
    do k = 1, nsc
      if (abs(xw(k) - (0.5d0 + 3 * scat(k))) > 0) then
        print *, 'rank ', rank, ': INDIRECT -> INDIRECT at ', scat(k), ': ', xw(k)
        failures = failures + 1
      end if
    end do
    call must(redist_plan_free(pl))

    ! INDIRECT_SUM -> BLOCK: every holder holds 1, each element is the number of its holders.
    allocate (ones(max(nh, 1_c_int64_t)), cnt(max(hi - lo, 1_c_int64_t)))
    ones = 1
    cnt = -1
    call must(redist_plan_create_typed_f(lhs, lb, MPI_COMM_WORLD, REDIST_INT64, pl))
    call must(redist_plan_execute(pl, c_loc(ones), c_loc(cnt)))
    do x = lo, hi - 1
      if (cnt(x - lo + 1) /= holders(n, x)) then
        print *, 'rank ', rank, ': INDIRECT_SUM -> BLOCK at ', x, ': ', cnt(x - lo + 1), ' holders ', holders(n, x)
        failures = failures + 1
      end if
    end do
    call must(redist_plan_free(pl))

    ! An index no rank lists (every rank its block but n / 2): every rank's plan fails, naming it.
    hole = n / 2
    k = 0
    do x = lo, hi - 1
      if (x /= hole) then
        k = k + 1
        holed(k) = x
      end if
    end do
    call must(redist_layout_create_indirect(n, holed, k, REDIST_INDIRECT, lholed))
    rc = redist_plan_create_f(lb, lholed, MPI_COMM_WORLD, 8_c_size_t, pl)
    message = redist_error_string()
    write (want, '(a, i0, a)') 'no rank holds ', hole, ')'
    if (rc /= REDIST_ERROR_ARGUMENT .or. index(message, trim(want)) == 0) then
      print *, 'rank ', rank, ': unheld index: ', rc, ' ', message
      failures = failures + 1
    end if
    if (c_associated(pl)) failures = failures + 1

    call must(redist_layout_free(lholed))
    call must(redist_layout_free(lb))
    call must(redist_layout_free(lh))
    call must(redist_layout_free(lhs))
    call must(redist_layout_free(ls))
  end subroutine indirect_case

end program capi_f
