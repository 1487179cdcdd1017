! redist from Fortran: the module `redist`, the C interface of redist/c.h (libredist-c) through
! iso_c_binding. Module files are particular to a compiler, so this source is installed with the
! headers and compiled with the program that uses it:
!
!   mpifort -c $prefix/include/redist/redist.f90           (makes redist.mod)
!   mpifort my_program.f90 redist.o -L$prefix/lib -lredist-c
!
! Layouts and plans are type(c_ptr) handles; communicators are Fortran's integer handles (the
! functions ending in _f); every function returns REDIST_SUCCESS or the class of its error, and
! redist_error_string() is the message. doc/c-api.md describes each function.
module redist
  use iso_c_binding, only: c_int, c_int64_t, c_size_t, c_ptr, c_char, c_associated, c_f_pointer
  implicit none
  private :: c_string

  ! The version of this module; redist_version_string() is the library's.
  integer(c_int), parameter :: REDIST_VERSION_MAJOR = 0, REDIST_VERSION_MINOR = 1, REDIST_VERSION_PATCH = 0
  character(len=*), parameter :: REDIST_MODULE_VERSION = '0.1.0'

  ! What every function returns: success, or the class of its error.
  integer(c_int), parameter :: REDIST_SUCCESS = 0, REDIST_ERROR = 1, REDIST_ERROR_ARGUMENT = 1, &
                               REDIST_ERROR_MISMATCH = 2, REDIST_ERROR_MEMORY = 3, REDIST_ERROR_MPI = 4, &
                               REDIST_ERROR_INTERNAL = 5
  ! The distribution of one dimension.
  integer(c_int), parameter :: REDIST_BLOCK = 0, REDIST_CYCLIC = 1, REDIST_GEN_BLOCK = 2, REDIST_COLLAPSED = 3, &
                               REDIST_REPLICATED = 4, REDIST_PARTIAL_SUM = 5
  ! The kinds of a 1-D INDIRECT layout (redist_layout_create_indirect): copies (ghosts allowed), or
  ! partial sums (added as a source; as a destination the lowest-ranked holder gets the element).
  integer(c_int), parameter :: REDIST_INDIRECT = 6, REDIST_INDIRECT_SUM = 7
  ! Element types of redist_plan_create_typed_f (partial sums are added in them).
  integer(c_int), parameter :: REDIST_FLOAT = 1, REDIST_DOUBLE = 2, REDIST_INT32 = 3, REDIST_INT64 = 4, &
                               REDIST_UINT32 = 5, REDIST_UINT64 = 6, REDIST_COMPLEX_FLOAT = 7, REDIST_COMPLEX_DOUBLE = 8
  ! Orders of a grid's processes and of a rank's storage.
  integer(c_int), parameter :: REDIST_ROW_MAJOR = 0, REDIST_COLUMN_MAJOR = 1
  ! What a plan of redist_plan_create_op_f computes: dst = alpha * op(src) + beta * dst.
  integer(c_int), parameter :: REDIST_OP_NONE = 0, REDIST_OP_TRANSPOSE = 1, REDIST_OP_CONJ_TRANSPOSE = 2
  ! The most dimensions of a layout.
  integer(c_int), parameter :: REDIST_MAX_DIMS = 8

  ! One dimension of a layout: kind, global extent, CYCLIC's block, GEN_BLOCK's sizes (c_loc of
  ! nprocs integer(c_int64_t), else c_null_ptr), the grid's extent along it, the grid coordinate of
  ! the first block.
  type, bind(C) :: redist_dim
    integer(c_int) :: kind
    integer(c_int64_t) :: extent
    integer(c_int64_t) :: block
    type(c_ptr) :: sizes
    integer(c_int) :: nprocs
    integer(c_int) :: offset
  end type redist_dim

  interface
    integer(c_int) function redist_layout_create(ndims, dims, grid_order, grid_first, storage_order, &
                                                 leading_dimension, layout) bind(C, name='redist_layout_create')
      import :: c_int, c_int64_t, c_ptr, redist_dim
      integer(c_int), value :: ndims, grid_order, grid_first, storage_order
      type(redist_dim), intent(in) :: dims(*)
      integer(c_int64_t), value :: leading_dimension
      type(c_ptr), intent(out) :: layout
    end function
    integer(c_int) function redist_layout_from_descriptor(desc, nprow, npcol, grid_order, grid_first, layout) &
        bind(C, name='redist_layout_from_descriptor')
      import :: c_int, c_ptr
      integer(c_int), intent(in) :: desc(9)
      integer(c_int), value :: nprow, npcol, grid_order, grid_first
      type(c_ptr), intent(out) :: layout
    end function
    ! An INDIRECT layout of extent elements: this rank holds the count global indices (from 0) of
    ! indices, in that local order (local element l + 1 is global element indices(l + 1)). Not collective.
    integer(c_int) function redist_layout_create_indirect(extent, indices, count, kind, layout) &
        bind(C, name='redist_layout_create_indirect')
      import :: c_int, c_int64_t, c_ptr
      integer(c_int64_t), value :: extent, count
      integer(c_int64_t), intent(in) :: indices(*)
      integer(c_int), value :: kind
      type(c_ptr), intent(out) :: layout
    end function
    integer(c_int) function redist_layout_set_ranks(layout, ranks) bind(C, name='redist_layout_set_ranks')
      import :: c_int, c_ptr
      type(c_ptr), value :: layout
      integer(c_int), intent(in) :: ranks(*)
    end function
    integer(c_int) function redist_layout_local_size_f(layout, comm, elements) bind(C, name='redist_layout_local_size_f')
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: layout
      integer(c_int), value :: comm
      integer(c_int64_t), intent(out) :: elements
    end function
    integer(c_int) function redist_layout_local_shape_f(layout, comm, extents, strides) &
        bind(C, name='redist_layout_local_shape_f')
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: layout
      integer(c_int), value :: comm
      integer(c_int64_t), intent(out) :: extents(*), strides(*)
    end function
    ! The global indices (from 0) this rank holds along dimension dim (from 0): indices(l + 1) is
    ! the global index of local index l.
    integer(c_int) function redist_layout_global_indices_f(layout, comm, dim, indices) &
        bind(C, name='redist_layout_global_indices_f')
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: layout
      integer(c_int), value :: comm, dim
      integer(c_int64_t), intent(out) :: indices(*)
    end function
    integer(c_int) function redist_layout_free(layout) bind(C, name='redist_layout_free')
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: layout
    end function
    integer(c_int) function redist_plan_create_f(from, to, comm, element_size, plan) bind(C, name='redist_plan_create_f')
      import :: c_int, c_size_t, c_ptr
      type(c_ptr), value :: from, to
      integer(c_int), value :: comm
      integer(c_size_t), value :: element_size
      type(c_ptr), intent(out) :: plan
    end function
    integer(c_int) function redist_plan_create_typed_f(from, to, comm, element_type, plan) &
        bind(C, name='redist_plan_create_typed_f')
      import :: c_int, c_ptr
      type(c_ptr), value :: from, to
      integer(c_int), value :: comm, element_type
      type(c_ptr), intent(out) :: plan
    end function
    ! The plan of dst = alpha * op(src) + beta * dst (REDIST_OP_...; element_type REDIST_FLOAT,
    ! REDIST_DOUBLE, REDIST_COMPLEX_FLOAT or REDIST_COMPLEX_DOUBLE). Collective.
    integer(c_int) function redist_plan_create_op_f(from, to, comm, element_type, op, plan) &
        bind(C, name='redist_plan_create_op_f')
      import :: c_int, c_ptr
      type(c_ptr), value :: from, to
      integer(c_int), value :: comm, element_type, op
      type(c_ptr), intent(out) :: plan
    end function
    ! dst = alpha * op(src) + beta * dst: alpha and beta c_loc of one value of the plan's type (beta
    ! c_null_ptr: dst not read), the same on every rank. Collective.
    integer(c_int) function redist_plan_execute_scaled(plan, alpha, src, beta, dst) &
        bind(C, name='redist_plan_execute_scaled')
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, alpha, src, beta, dst
    end function
    ! dst = src (c_loc of this rank's arrays of the two layouts). Collective.
    integer(c_int) function redist_plan_execute(plan, src, dst) bind(C, name='redist_plan_execute')
      import :: c_int, c_ptr
      type(c_ptr), value :: plan, src, dst
    end function
    integer(c_int) function redist_plan_free(plan) bind(C, name='redist_plan_free')
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: plan
    end function
    type(c_ptr) function redist_error_message() bind(C, name='redist_error_message')
      import :: c_ptr
    end function
    type(c_ptr) function redist_version() bind(C, name='redist_version')
      import :: c_ptr
    end function
  end interface

contains

  ! The message of this thread's last failed call, as a Fortran string ('' after a success).
  function redist_error_string() result(s)
    character(len=:), allocatable :: s
    s = c_string(redist_error_message())
  end function redist_error_string

  ! The library's version, 'MAJOR.MINOR.PATCH' (REDIST_MODULE_VERSION is this module's).
  function redist_version_string() result(s)
    character(len=:), allocatable :: s
    s = c_string(redist_version())
  end function redist_version_string

  ! A NUL-terminated C string as a Fortran string.
  function c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    interface
      integer(c_size_t) function c_strlen(str) bind(C, name='strlen')
        import :: c_size_t, c_ptr
        type(c_ptr), value :: str
      end function
    end interface
    n = 0
    if (c_associated(p)) n = int(c_strlen(p))
    allocate (character(len=n) :: s)
    if (n == 0) return
    call c_f_pointer(p, chars, [n])
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function c_string
end module redist
