! An unmodified ScaLAPACK caller (issue 17): PDGEMR2D, PZGEMR2D and PDTRMR2D on several grids,
! block sizes, windows and trapezoids, and Cblacs_gridmap grids. Each process writes its local
! part of every destination, after every call, to the file <prefix>.<rank> (raw bytes). Built once
! against ScaLAPACK and once with libredist-scalapack first, the two runs must write identical
! files (test/dropin/compare.sh).
program mr2d
  implicit none
  integer :: iam, nprocs, gctx, ncase, k
  character(len=256) :: prefix
  character(len=16) :: rankname
  integer, external :: numroc

  call blacs_pinfo(iam, nprocs)
  call get_command_argument(1, prefix)
  write (rankname, '(I0)') iam
  open (unit=10, file=trim(prefix)//'.'//trim(rankname), access='stream', form='unformatted', status='replace')

  ! The context of every call: all processes in one row.
  call blacs_get(-1, 0, gctx)
  call blacs_gridinit(gctx, 'R', 1, nprocs)

  ncase = 0
  ! grid A (rows, cols, order), grid B, m, n, A's blocks, B's blocks, windows, routine
  do k = 1, 2
    call one(2, 2, 'R', 4, 1, 'R', 37, 29, 4, 3, 5, 7, 1, 1, 1, 1, 'G', 'N', 'N', k)
    call one(1, 4, 'C', 2, 2, 'C', 64, 64, 8, 8, 3, 2, 1, 1, 1, 1, 'G', 'N', 'N', k)
    call one(2, 1, 'R', 1, 3, 'R', 40, 33, 2, 5, 6, 1, 3, 4, 2, 1, 'G', 'N', 'N', k)
    call one(2, 2, 'C', 2, 2, 'R', 30, 30, 3, 3, 4, 4, 2, 2, 5, 1, 'G', 'N', 'N', k)
    call one(2, 2, 'R', 1, 4, 'R', 25, 25, 4, 4, 3, 3, 1, 1, 1, 1, 'T', 'U', 'N', k)
    call one(4, 1, 'R', 2, 2, 'C', 31, 22, 3, 5, 4, 2, 2, 3, 1, 2, 'T', 'L', 'N', k)
    call one(2, 2, 'R', 2, 2, 'C', 20, 28, 2, 3, 5, 2, 1, 1, 3, 1, 'T', 'U', 'U', k)
    call one(1, 3, 'R', 2, 2, 'R', 28, 20, 4, 3, 2, 2, 1, 1, 1, 1, 'T', 'L', 'U', k)
    call one(2, 2, 'R', 2, 1, 'R', 50, 40, 6, 4, 4, 6, 1, 1, 1, 1, 'Z', 'N', 'N', k)
    call one(2, 2, 'M', 2, 2, 'R', 24, 24, 3, 3, 2, 2, 1, 1, 1, 1, 'G', 'N', 'N', k)
    call one(1, 4, 'M', 2, 2, 'M', 33, 27, 3, 4, 5, 2, 2, 1, 1, 3, 'Z', 'N', 'N', k)
    call one(2, 2, 'C', 1, 3, 'M', 26, 26, 3, 2, 4, 4, 1, 1, 1, 1, 'T', 'U', 'N', k)
    call tr(2, 2, 'R', 23, 17, 4, 3, 5, 2, 2, 3, 1, 2, 'D', k)
    call tr(1, 3, 'C', 30, 12, 2, 5, 3, 3, 1, 1, 4, 1, 'C', k)
  end do

  close (10)
  call blacs_gridexit(gctx)
  call blacs_exit(0)

contains

  ! A grid of r x c processes in order o ('R', 'C', or 'M': a scrambled Cblacs_gridmap map).
  integer function grid(r, c, o)
    integer, intent(in) :: r, c
    character, intent(in) :: o
    integer :: map(r, c), i, j
    call blacs_get(-1, 0, grid)
    if (o == 'M') then
      do j = 1, c
        do i = 1, r
          map(i, j) = mod((i - 1) * c + (j - 1) + 1, r * c)  ! a rotation of the row-major order
        end do
      end do
      call blacs_gridmap(grid, map, r, r, c)
    else
      call blacs_gridinit(grid, o, r, c)
    end if
  end function grid

  subroutine describe(desc, ctxt, m, n, mb, nb, lld)
    integer, intent(out) :: desc(9), lld
    integer, intent(in) :: ctxt, m, n, mb, nb
    integer :: nprow, npcol, myrow, mycol, info
    desc = 0
    desc(2) = -1
    lld = 1
    if (ctxt < 0) return
    call blacs_gridinfo(ctxt, nprow, npcol, myrow, mycol)
    if (myrow < 0) return
    lld = max(1, numroc(m, mb, myrow, 0, nprow)) + 1  ! a padded leading dimension
    call descinit(desc, m, n, mb, nb, 0, 0, ctxt, lld, info)
  end subroutine describe

  integer function local_cols(desc)
    integer, intent(in) :: desc(9)
    integer :: nprow, npcol, myrow, mycol
    local_cols = 1
    if (desc(2) < 0) return
    call blacs_gridinfo(desc(2), nprow, npcol, myrow, mycol)
    local_cols = max(1, numroc(desc(4), desc(6), mycol, desc(8), npcol))
  end function local_cols

  ! Fills this process's part of the matrix desc with value(i, j) = i + 1000 j (+ a case offset).
  subroutine fill(a, lld, desc, offset)
    integer, intent(in) :: lld, desc(9)
    double precision, intent(inout) :: a(lld, *)
    double precision, intent(in) :: offset
    integer :: nprow, npcol, myrow, mycol, li, lj, gi, gj, ncol, nrow
    integer, external :: indxl2g
    if (desc(2) < 0) return
    call blacs_gridinfo(desc(2), nprow, npcol, myrow, mycol)
    nrow = numroc(desc(3), desc(5), myrow, desc(7), nprow)
    ncol = numroc(desc(4), desc(6), mycol, desc(8), npcol)
    do lj = 1, ncol
      gj = indxl2g(lj, desc(6), mycol, desc(8), npcol)
      do li = 1, nrow
        gi = indxl2g(li, desc(5), myrow, desc(7), nprow)
        a(li, lj) = gi + 1000 * gj + offset
      end do
    end do
  end subroutine fill

  subroutine one(ra, ca, oa, rb, cb, ob, m, n, mba, nba, mbb, nbb, ia, ja, ib, jb, kind, uplo, diag, pass)
    integer, intent(in) :: ra, ca, rb, cb, m, n, mba, nba, mbb, nbb, ia, ja, ib, jb, pass
    character, intent(in) :: oa, ob, kind, uplo, diag
    integer :: ctxa, ctxb, desca(9), descb(9), llda, lldb, ma, na, mb, nb
    double precision, allocatable :: a(:), b(:)
    complex(kind=8), allocatable :: za(:), zb(:)

    ncase = ncase + 1
    ! Every process takes part in making a grid (blacs_gridinit is collective over the system).
    ctxa = grid(ra, ca, oa)
    ctxb = grid(rb, cb, ob)
    ma = m + ia - 1
    na = n + ja - 1
    mb = m + ib - 1
    nb = n + jb - 1
    call describe(desca, ctxa, ma, na, mba, nba, llda)
    call describe(descb, ctxb, mb, nb, mbb, nbb, lldb)
    allocate (a(llda * local_cols(desca)), b(lldb * local_cols(descb)))
    a = -7.0d0
    b = -1.0d0
    call fill(a, llda, desca, 0.25d0 * pass)
    if (kind == 'Z') then
      allocate (za(size(a)), zb(size(b)))
      za = cmplx(a, -a, kind=8)
      zb = cmplx(b, 2 * b, kind=8)
      call pzgemr2d(m, n, za, ia, ja, desca, zb, ib, jb, descb, gctx)
      write (10) ncase, zb
      deallocate (za, zb)
    else if (kind == 'T') then
      call pdtrmr2d(uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, gctx)
      write (10) ncase, b
    else
      ! Twice: the second call runs the first's plan (cached by the drop-in).
      call pdgemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, gctx)
      write (10) ncase, b
      b = -1.0d0
      call pdgemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, gctx)
      write (10) ncase, b
    end if
    deallocate (a, b)
    if (desca(2) >= 0) call blacs_gridexit(ctxa)
    if (descb(2) >= 0) call blacs_gridexit(ctxb)
  end subroutine one

  ! sub(C) (m x n at (ic, jc)) := 2 sub(C) + 0.5 op(sub(A)) (A: n x m at (ia, ja)), A and C on one
  ! r x c grid: PDTRAN (kind 'D') or PZTRANC ('C'). The values are exact in binary, so both
  ! libraries' results are exact too. Twice on the same arrays: the second call runs the first's
  ! plan (cached by the drop-in).
  subroutine tr(r, c, o, m, n, mba, nba, mbc, nbc, ia, ja, ic, jc, kind, pass)
    integer, intent(in) :: r, c, m, n, mba, nba, mbc, nbc, ia, ja, ic, jc, pass
    character, intent(in) :: o, kind
    integer :: ctx, desca(9), descc(9), llda, lldc
    double precision, allocatable :: a(:), cc(:)
    complex(kind=8), allocatable :: za(:), zc(:)

    ncase = ncase + 1
    ctx = grid(r, c, o)
    call describe(desca, ctx, n + ia - 1, m + ja - 1, mba, nba, llda)
    call describe(descc, ctx, m + ic - 1, n + jc - 1, mbc, nbc, lldc)
    allocate (a(llda * local_cols(desca)), cc(lldc * local_cols(descc)))
    a = -7.0d0
    cc = -1.0d0
    call fill(a, llda, desca, 0.25d0 * pass)
    call fill(cc, lldc, descc, 0.5d0)
    if (desca(2) >= 0) then
      if (kind == 'C') then
        allocate (za(size(a)), zc(size(cc)))
        za = cmplx(a, 3 * a, kind=8)
        zc = cmplx(cc, -cc, kind=8)
        call pztranc(m, n, (0.5d0, 0.25d0), za, ia, ja, desca, (2.0d0, 0.0d0), zc, ic, jc, descc)
        write (10) ncase, zc
        call pztranc(m, n, (0.5d0, 0.25d0), za, ia, ja, desca, (2.0d0, 0.0d0), zc, ic, jc, descc)
        write (10) ncase, zc
        deallocate (za, zc)
      else
        call pdtran(m, n, 0.5d0, a, ia, ja, desca, 2.0d0, cc, ic, jc, descc)
        write (10) ncase, cc
        call pdtran(m, n, 0.5d0, a, ia, ja, desca, 2.0d0, cc, ic, jc, descc)
        write (10) ncase, cc
      end if
      call blacs_gridexit(ctx)
    end if
    deallocate (a, cc)
  end subroutine tr

end program mr2d
